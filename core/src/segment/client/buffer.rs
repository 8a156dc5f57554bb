//! The buffer of a tag: the current and the next range, in memory, and the hot path that
//! takes IDs from them.
//!
//! Each tag keeps two range *slots* and one `AtomicU64` word, `gen << 44 | offset`: the
//! generation of the current range and the next offset in it. Taking an ID is one `fetch_add`
//! on that word, then reading the slot of that generation (`start`, `len`) and checking it
//! still belongs to that generation (a seqlock: the slot is rewritten only for generation
//! `gen + 2`, and a reader that raced with the rewrite sees the generation change and retries).
//! No lock, no allocation, no channel. Every `(gen, offset)` pair is handed to exactly one
//! caller, and distinct pairs map to distinct IDs because the ranges of distinct generations
//! are disjoint: uniqueness rests on that one atomic, plus the store's contract.
//!
//! When a range is used up, a caller that finds the next slot filled moves the word to
//! `(gen + 1, 0)` with a compare-and-swap (the others retry); the caller whose offset crosses
//! the refill share (20% by default) starts the background refill (module `refill`) of the
//! slot after it. What a refill fetches (its step) is the refill's decision, not the buffer's.

use std::sync::atomic::{fence, AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Instant;

use tokio::sync::Notify;

use crate::segment::store::IdRange;
use crate::{Error, Result};

const OFF_BITS: u32 = 44;
const OFF_MASK: u64 = (1 << OFF_BITS) - 1;
const GEN_MASK: u64 = (1 << (64 - OFF_BITS)) - 1;
/// Marks a slot being rewritten; no real generation has it (generations are 20-bit).
const GEN_WRITING: u64 = u64::MAX;

pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every value behind these locks is replaced whole, so a poisoned one is still consistent.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

struct Slot {
    gen: AtomicU64,
    start: AtomicU64,
    len: AtomicU64,
    /// The offset whose taker starts the refill of the next slot.
    trigger: AtomicU64,
}

impl Slot {
    fn empty(gen: u64) -> Slot {
        Slot {
            gen: AtomicU64::new(gen),
            start: AtomicU64::new(0),
            len: AtomicU64::new(0),
            trigger: AtomicU64::new(u64::MAX),
        }
    }

    /// `(start, len, trigger)` if the slot holds generation `gen`.
    #[inline(always)]
    fn read(&self, gen: u64) -> Option<(u64, u64, u64)> {
        if self.gen.load(Ordering::Acquire) != gen {
            return None;
        }
        let start = self.start.load(Ordering::Relaxed);
        let len = self.len.load(Ordering::Relaxed);
        let trigger = self.trigger.load(Ordering::Relaxed);
        fence(Ordering::Acquire);
        (self.gen.load(Ordering::Relaxed) == gen).then_some((start, len, trigger))
    }

    fn write(&self, gen: u64, range: IdRange, trigger: u64) {
        self.gen.store(GEN_WRITING, Ordering::Relaxed);
        fence(Ordering::Release);
        self.start.store(range.start, Ordering::Relaxed);
        self.len.store(range.len(), Ordering::Relaxed);
        self.trigger.store(trigger, Ordering::Relaxed);
        self.gen.store(gen, Ordering::Release);
    }
}

#[repr(align(64))]
struct Padded<T>(T);

pub(super) struct TagState {
    /// The tag as stored.
    pub(super) name: String,
    /// `gen << 44 | offset`.
    word: Padded<AtomicU64>,
    slots: [Slot; 2],
    pub(super) refilling: AtomicBool,
    /// The tag's step as the store holds it (or the client's default): the least a refill
    /// fetches, and the longest run served from the buffered ranges. Changed only by
    /// [`TagState::set_base_step`], when this client updates the tag's step.
    base_step: AtomicU64,
    pub(super) step: AtomicU64,
    /// The last ID of every range received so far (0: none): the guard against a store that
    /// lost its state.
    pub(super) high_water: AtomicU64,
    pub(super) last_fetch: Mutex<Option<Instant>>,
    /// Bumped after every refill attempt; blocking waiters watch it.
    pub(super) events: Mutex<u64>,
    pub(super) cv: Condvar,
    pub(super) notify: Notify,
    /// A refill outcome no retry fixes (unknown tag, exhausted): handed to the waiters.
    pub(super) fatal: Mutex<Option<Error>>,
    /// A store that went backwards: sticky, the tag serves what it holds and then only errors.
    pub(super) poison: Mutex<Option<Error>>,
    pub(super) last_error: Mutex<Option<String>>,
    pub(super) refills: AtomicU64,
    /// IDs in every range installed so far: minus what is still buffered, the IDs handed out
    /// (counted here, once per range, not once per ID on the hot path).
    pub(super) fetched: AtomicU64,
    pub(super) store_errors: AtomicU64,
    pub(super) refill_ns_total: AtomicU64,
    pub(super) refill_ns_last: AtomicU64,
    pub(super) refill_ns_max: AtomicU64,
    /// Callers that waited for a refill (see `TagMetrics::waits`).
    pub(super) waits: AtomicU64,
}

pub(super) enum Take {
    /// The first ID of `n`, and whether this taker crossed the refill share.
    Got(u64, bool),
    Empty,
}

impl TagState {
    pub(super) fn new(name: &str, base_step: u64) -> TagState {
        TagState {
            name: name.to_string(),
            word: Padded(AtomicU64::new(0)),
            // Generation 0 is an empty range in slot 0, so the first call goes to the slow path.
            slots: [Slot::empty(0), Slot::empty(GEN_WRITING)],
            refilling: AtomicBool::new(false),
            base_step: AtomicU64::new(base_step),
            step: AtomicU64::new(base_step),
            high_water: AtomicU64::new(0),
            last_fetch: Mutex::new(None),
            events: Mutex::new(0),
            cv: Condvar::new(),
            notify: Notify::new(),
            fatal: Mutex::new(None),
            poison: Mutex::new(None),
            last_error: Mutex::new(None),
            refills: AtomicU64::new(0),
            fetched: AtomicU64::new(0),
            store_errors: AtomicU64::new(0),
            refill_ns_total: AtomicU64::new(0),
            refill_ns_last: AtomicU64::new(0),
            refill_ns_max: AtomicU64::new(0),
            waits: AtomicU64::new(0),
        }
    }

    /// The hot path: one `fetch_add`, then a validated read of the slot.
    #[inline(always)]
    pub(super) fn try_take(&self, n: u64) -> Take {
        loop {
            let w = self.word.0.fetch_add(n, Ordering::AcqRel);
            let (gen, off) = (w >> OFF_BITS, w & OFF_MASK);
            let Some((start, len, trigger)) = self.slots[(gen & 1) as usize].read(gen) else {
                // The slot moved on to a later generation while we read: our offset belonged
                // to a finished range; it is skipped (a gap) and we take again.
                if self.word.0.load(Ordering::Acquire) >> OFF_BITS == gen {
                    return Take::Empty;
                }
                continue;
            };
            return if off + n <= len {
                Take::Got(start + off, off <= trigger && trigger < off + n)
            } else {
                Take::Empty
            };
        }
    }

    /// The next slot holds the generation after the current one.
    pub(super) fn next_ready(&self) -> bool {
        let gen = self.word.0.load(Ordering::Acquire) >> OFF_BITS;
        let next = (gen + 1) & GEN_MASK;
        self.slots[(next & 1) as usize].gen.load(Ordering::Acquire) == next
    }

    /// Takes `n` IDs, moving to the next range when the current one cannot supply them.
    /// Looks before it adds, so callers waiting on an empty tag do not push the offset on.
    pub(super) fn take_or_swap(&self, n: u64) -> Take {
        loop {
            let w = self.word.0.load(Ordering::Acquire);
            let (gen, off) = (w >> OFF_BITS, w & OFF_MASK);
            let Some((_, len, _)) = self.slots[(gen & 1) as usize].read(gen) else {
                // The word moved on meanwhile (look again), or the buffer is sealed: its
                // generation has no slot, for good.
                if self.word.0.load(Ordering::Acquire) == w {
                    return Take::Empty;
                }
                continue;
            };
            if off + n <= len {
                match self.try_take(n) {
                    got @ Take::Got(..) => return got,
                    Take::Empty => continue,
                }
            }
            let next = (gen + 1) & GEN_MASK;
            if self.slots[(next & 1) as usize].gen.load(Ordering::Acquire) != next {
                return Take::Empty;
            }
            // Only one swapper wins; everyone else sees the new generation and goes again.
            let _ = self.word.0.compare_exchange(
                w,
                next << OFF_BITS,
                Ordering::AcqRel,
                Ordering::Acquire,
            );
        }
    }

    /// Puts a fetched range in the slot after the current one. Only the refill task calls
    /// this, and only one refill runs per tag, so the current generation cannot move meanwhile
    /// (moving needs this very slot).
    pub(super) fn install(&self, range: IdRange, refill_at: u8) {
        let gen = self.word.0.load(Ordering::Acquire) >> OFF_BITS;
        let next = (gen + 1) & GEN_MASK;
        let trigger = range.len() * refill_at as u64 / 100;
        self.fetched.fetch_add(range.len(), Ordering::Relaxed);
        self.slots[(next & 1) as usize].write(next, range, trigger);
    }

    /// Seals the buffer for good: no ID is taken from it after this returns (takers get
    /// [`Take::Empty`]), and what was never taken comes back as `(range, first unused ID)`,
    /// lowest first: the current range's tail, then the next range whole. Called as the client
    /// closes, once no refill runs (none installs a range afterwards).
    ///
    /// The next slot is invalidated first, so nobody moves onto it; then one `swap` of the word
    /// to a generation no slot holds: every `fetch_add` before it got its ID (and counts in the
    /// offset read back), every one after it gets nothing. A taker whose offset was counted but
    /// whose slot read then failed takes nothing: a gap, never a repeat.
    pub(super) fn seal(&self) -> Vec<(IdRange, u64)> {
        let gen = self.word.0.load(Ordering::Acquire) >> OFF_BITS;
        let next = (gen + 1) & GEN_MASK;
        let range_of = |slot: &Slot, g: u64| {
            slot.read(g)
                .and_then(|(start, len, _)| IdRange::new(start, start + len).ok())
        };
        let cur_slot = &self.slots[(gen & 1) as usize];
        let next_slot = &self.slots[(next & 1) as usize];
        let cur = range_of(cur_slot, gen);
        let nxt = range_of(next_slot, next);
        next_slot.gen.store(GEN_WRITING, Ordering::Release);
        // gen + 2 maps to the current slot, which holds gen (or to nothing, once sealed).
        let old = self
            .word
            .0
            .swap(((gen + 2) & GEN_MASK) << OFF_BITS, Ordering::AcqRel);
        let (old_gen, off) = (old >> OFF_BITS, old & OFF_MASK);
        let tail = |r: IdRange| (off < r.len()).then(|| (r, r.start + off));
        let out: Vec<(IdRange, u64)> = if old_gen == gen {
            cur.and_then(tail)
                .into_iter()
                .chain(nxt.map(|r| (r, r.start)))
                .collect()
        } else if old_gen == next {
            // A taker moved onto the next range before it was invalidated: the current one is
            // passed, the next one is current.
            nxt.and_then(tail).into_iter().collect()
        } else {
            Vec::new()
        };
        let unused: u64 = out.iter().map(|(r, n)| r.end - n).sum();
        // Never handed out, whether the store takes them back or not: not counted as issued
        // (every range was counted whole as it was installed).
        self.fetched.fetch_sub(unused, Ordering::Relaxed);
        out
    }

    pub(super) fn remaining(&self) -> u64 {
        let w = self.word.0.load(Ordering::Acquire);
        let (gen, off) = (w >> OFF_BITS, w & OFF_MASK);
        let cur = self.slots[(gen & 1) as usize]
            .read(gen)
            .map_or(0, |(_, len, _)| len.saturating_sub(off));
        let next = (gen + 1) & GEN_MASK;
        let nxt = self.slots[(next & 1) as usize]
            .read(next)
            .map_or(0, |(_, len, _)| len);
        cur + nxt
    }

    /// The tag's step (see `base_step`).
    #[inline(always)]
    pub(super) fn base_step(&self) -> u64 {
        self.base_step.load(Ordering::Relaxed)
    }

    /// A new step for the tag (its row changed): the next refill fetches exactly `step`, and
    /// the dynamic step grows and shrinks from it from then on. A refill already under way
    /// ends with the size it asked for; ranges already buffered are served as they are.
    pub(super) fn set_base_step(&self, step: u64) {
        self.base_step.store(step, Ordering::Relaxed);
        self.step.store(step, Ordering::Relaxed);
        *lock(&self.last_fetch) = None;
    }

    pub(super) fn signal(&self) {
        *lock(&self.events) += 1;
        self.cv.notify_all();
        self.notify.notify_waiters();
    }

    pub(super) fn record_refill(&self, started: Instant) {
        let ns = started.elapsed().as_nanos().min(u64::MAX as u128) as u64;
        self.refills.fetch_add(1, Ordering::Relaxed);
        self.refill_ns_total.fetch_add(ns, Ordering::Relaxed);
        self.refill_ns_last.store(ns, Ordering::Relaxed);
        self.refill_ns_max.fetch_max(ns, Ordering::Relaxed);
    }

    /// Checks a range from the store against what this client already received.
    pub(super) fn guard(&self, range: IdRange, issued_before: u64) -> Result<()> {
        if range.start <= issued_before {
            let err = Error::RangeBelowIssued {
                tag: self.name.clone(),
                start: range.start,
                end: range.last(),
                issued: issued_before,
            };
            *lock(&self.poison) = Some(err.clone());
            return Err(err);
        }
        self.high_water.fetch_max(range.last(), Ordering::AcqRel);
        Ok(())
    }
}
