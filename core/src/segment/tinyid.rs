//! Didi Tinyid's segments, as its `tiny_id_info` table and its client define them, for a server
//! that hands segment IDs to Tinyid's callers.
//!
//! A Tinyid bizType's row has a `step` (the width of each segment), a `delta` and a
//! `remainder`: the bizType hands out only IDs with `id % delta == remainder` (odd IDs with
//! `delta = 2, remainder = 1`; one shard of `delta` with `delta = N`, so `N` databases, one
//! remainder each, never hand out the same ID). A segment is `(currentId, maxId]` with `delta`
//! and `remainder` beside it, and tinyid-client's `SegmentId` issues from it exactly the IDs
//! of that interval with the remainder: its `init()` moves `currentId` to the first of them
//! less `delta`, then each `nextId()` adds `delta`. A batch of `n` IDs of the remainder is
//! drawn as `n × delta` contiguous IDs, which hold exactly `n` of them.

use super::store::IdRange;
use super::tag::MAX_STEP;
use crate::rules::check_step;
use crate::{Error, Result};

/// Share of a segment, in percent, after which Tinyid's client fetches the next one (Tinyid's
/// `loadingPercent`): a segment's `loadingId` is `currentId + step × 20 / 100`.
///
/// ```
/// use idmint_core::segment::{IdRange, TinyidRule, TINYID_LOADING_PERCENT};
/// let s = TinyidRule::default().segment(IdRange::new(1, 1001)?);
/// assert_eq!(s.loading_id, 1000 * TINYID_LOADING_PERCENT / 100);
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub const TINYID_LOADING_PERCENT: u64 = 20;

/// The width of a Tinyid segment unless configured: the `step` of the rows in Tinyid's own
/// schema (`tinyid-server/db.sql`).
///
/// ```
/// use idmint_core::segment::{TinyidRule, TINYID_DEFAULT_STEP};
/// assert_eq!(TinyidRule::default().step(), TINYID_DEFAULT_STEP);
/// ```
pub const TINYID_DEFAULT_STEP: u64 = 100_000;

/// The largest `delta`: tinyid-client reads `delta` and `remainder` as Java `int`s.
///
/// ```
/// use idmint_core::segment::{TinyidRule, MAX_STEP, TINYID_MAX_DELTA};
/// assert!(TinyidRule::new(MAX_STEP, TINYID_MAX_DELTA, 0).is_ok());
/// assert!(TinyidRule::new(MAX_STEP, TINYID_MAX_DELTA + 1, 0).is_err());
/// ```
pub const TINYID_MAX_DELTA: u64 = i32::MAX as u64;

/// One Tinyid bizType's row: the width of its segments (`step`) and the IDs it hands out
/// (`id % delta == remainder`).
///
/// ```
/// use idmint_core::segment::{IdRange, TinyidRule};
/// let odd = TinyidRule::new(100_000, 2, 1)?;
/// assert!(odd.holds(7) && !odd.holds(8));
/// // A batch of 3 odd IDs is drawn as 6 contiguous ones.
/// assert_eq!(odd.span(3)?, 6);
/// let drawn = IdRange::new(10, 16)?;
/// assert_eq!(odd.ids_in(drawn).collect::<Vec<_>>(), [11, 13, 15]);
/// assert_eq!(TinyidRule::new(100, 2, 2).unwrap_err().kind(), "invalid_argument");
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TinyidRule {
    step: u64,
    delta: u64,
    remainder: u64,
}

impl Default for TinyidRule {
    /// Tinyid's defaults: step [`TINYID_DEFAULT_STEP`], `delta` 1, `remainder` 0 (every ID).
    ///
    /// ```
    /// let r = idmint_core::segment::TinyidRule::default();
    /// assert_eq!((r.step(), r.delta(), r.remainder()), (100_000, 1, 0));
    /// ```
    fn default() -> Self {
        TinyidRule {
            step: TINYID_DEFAULT_STEP,
            delta: 1,
            remainder: 0,
        }
    }
}

impl TinyidRule {
    /// A row, checked: `step` 1..=2^40 and at least `delta` (so every segment holds an ID of
    /// the remainder), `delta` 1..=[`TINYID_MAX_DELTA`], `remainder` 0..`delta`. Each error
    /// names the value and the valid range.
    ///
    /// ```
    /// use idmint_core::segment::TinyidRule;
    /// assert!(TinyidRule::new(100_000, 4, 3).is_ok());
    /// let e = TinyidRule::new(100_000, 2, 5).unwrap_err();
    /// assert_eq!(e.to_string(), "invalid argument `remainder` = 5: 0..=1 (below delta = 2)");
    /// let e = TinyidRule::new(100_000, 0, 0).unwrap_err();
    /// assert_eq!(e.to_string(), "invalid argument `delta` = 0: 1..=2147483647");
    /// let e = TinyidRule::new(3, 4, 0).unwrap_err();
    /// assert_eq!(e.to_string(), "invalid argument `step` = 3: at least delta = 4, so that every segment holds an ID of the remainder");
    /// ```
    pub fn new(step: u64, delta: u64, remainder: u64) -> Result<TinyidRule> {
        check_step("step", step)?;
        if !(1..=TINYID_MAX_DELTA).contains(&delta) {
            return Err(Error::InvalidArgument {
                name: "delta".into(),
                value: delta.to_string(),
                expected: format!("1..={TINYID_MAX_DELTA}"),
            });
        }
        if remainder >= delta {
            return Err(Error::InvalidArgument {
                name: "remainder".into(),
                value: remainder.to_string(),
                expected: format!("0..={} (below delta = {delta})", delta - 1),
            });
        }
        if step < delta {
            return Err(Error::InvalidArgument {
                name: "step".into(),
                value: step.to_string(),
                expected: format!(
                    "at least delta = {delta}, so that every segment holds an ID of the remainder"
                ),
            });
        }
        Ok(TinyidRule {
            step,
            delta,
            remainder,
        })
    }

    /// The width of each segment.
    ///
    /// ```
    /// assert_eq!(idmint_core::segment::TinyidRule::new(500, 1, 0)?.step(), 500);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn step(&self) -> u64 {
        self.step
    }

    /// `delta`: the distance between two IDs handed out.
    ///
    /// ```
    /// assert_eq!(idmint_core::segment::TinyidRule::new(500, 3, 1)?.delta(), 3);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn delta(&self) -> u64 {
        self.delta
    }

    /// `remainder`: every ID handed out leaves it when divided by `delta`.
    ///
    /// ```
    /// assert_eq!(idmint_core::segment::TinyidRule::new(500, 3, 1)?.remainder(), 1);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn remainder(&self) -> u64 {
        self.remainder
    }

    /// Whether `id` is one this bizType hands out: `id % delta == remainder`.
    ///
    /// ```
    /// let even = idmint_core::segment::TinyidRule::new(100, 2, 0)?;
    /// assert!(even.holds(4) && !even.holds(5));
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn holds(&self, id: u64) -> bool {
        id % self.delta == self.remainder
    }

    /// How many contiguous IDs to draw for a batch of `count` IDs of the remainder:
    /// `count × delta` (any `count × delta` consecutive integers hold exactly `count` of each
    /// remainder), 1..=2^40.
    ///
    /// ```
    /// let r = idmint_core::segment::TinyidRule::new(100, 4, 1)?;
    /// assert_eq!(r.span(10)?, 40);
    /// assert_eq!(r.span(0).unwrap_err().kind(), "invalid_argument");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn span(&self, count: u64) -> Result<u64> {
        let name = "batch size × delta";
        let span = count
            .checked_mul(self.delta)
            .ok_or_else(|| Error::InvalidArgument {
                name: name.into(),
                value: format!("{count} × {}", self.delta),
                expected: format!("1..={MAX_STEP}"),
            })?;
        check_step(name, span)?;
        Ok(span)
    }

    /// The IDs of `range` this bizType hands out, ascending: those with the remainder.
    ///
    /// ```
    /// use idmint_core::segment::{IdRange, TinyidRule};
    /// let r = TinyidRule::new(100, 3, 2)?;
    /// assert_eq!(r.ids_in(IdRange::new(1, 10)?).collect::<Vec<_>>(), [2, 5, 8]);
    /// assert_eq!(r.ids_in(IdRange::new(3, 5)?).count(), 0);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn ids_in(&self, range: IdRange) -> std::iter::StepBy<std::ops::Range<u64>> {
        let d = self.delta;
        // The first ID at or above `start` with the remainder; past `end` when none is left.
        let first = range
            .start
            .saturating_add((self.remainder + d - range.start % d) % d);
        // delta ≤ i32::MAX fits every usize Rust supports.
        (first.min(range.end)..range.end).step_by(d as usize)
    }

    /// The segment that hands out `range`'s IDs of the remainder: `currentId` one below its
    /// first ID, `maxId` its last, `loadingId` [`TINYID_LOADING_PERCENT`] % of the way in.
    ///
    /// ```
    /// use idmint_core::segment::{IdRange, TinyidRule};
    /// let s = TinyidRule::new(100_000, 2, 1)?.segment(IdRange::new(200_002, 300_002)?);
    /// assert_eq!((s.current_id, s.loading_id, s.max_id), (200_001, 220_001, 300_001));
    /// assert_eq!((s.delta, s.remainder), (2, 1));
    /// assert_eq!(s.ids().take(2).collect::<Vec<_>>(), [200_003, 200_005]);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn segment(&self, range: IdRange) -> TinyidSegment {
        // Stores never hand out ID 0; should a range start there, the segment starts one
        // above it (a gap, never an ID outside the range).
        let current_id = range.start.saturating_sub(1);
        let width = range.end - current_id - 1;
        TinyidSegment {
            current_id,
            loading_id: current_id + width * TINYID_LOADING_PERCENT / 100,
            max_id: range.last(),
            delta: self.delta,
            remainder: self.remainder,
        }
    }
}

/// A Tinyid segment, as tinyid-server's `nextSegmentId` answers it: tinyid-client issues the
/// IDs of `(current_id, max_id]` with `id % delta == remainder`, and fetches the next segment
/// once it reaches `loading_id`.
///
/// ```
/// use idmint_core::segment::{IdRange, TinyidRule};
/// let s = TinyidRule::default().segment(IdRange::new(1, 100_001)?);
/// assert_eq!((s.current_id, s.loading_id, s.max_id, s.delta, s.remainder), (0, 20_000, 100_000, 1, 0));
/// assert_eq!(s.ids().count(), 100_000);
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TinyidSegment {
    /// One below the first ID of the segment (`currentId`).
    pub current_id: u64,
    /// Where the client starts fetching the next segment (`loadingId`).
    pub loading_id: u64,
    /// The last ID of the segment (`maxId`).
    pub max_id: u64,
    /// `delta`.
    pub delta: u64,
    /// `remainder`.
    pub remainder: u64,
}

impl TinyidSegment {
    /// The IDs tinyid-client issues from the segment, ascending.
    ///
    /// ```
    /// use idmint_core::segment::TinyidSegment;
    /// let s = TinyidSegment { current_id: 10, loading_id: 12, max_id: 20, delta: 4, remainder: 2 };
    /// assert_eq!(s.ids().collect::<Vec<_>>(), [14, 18]);
    /// ```
    pub fn ids(&self) -> std::iter::StepBy<std::ops::Range<u64>> {
        let rule = TinyidRule {
            step: 1,
            delta: self.delta.max(1),
            remainder: self.remainder,
        };
        match IdRange::new(
            self.current_id.saturating_add(1),
            self.max_id.saturating_add(1),
        ) {
            Ok(range) => rule.ids_in(range),
            Err(_) => (0..0).step_by(1),
        }
    }
}

/// How Tinyid's JSON endpoints answer a refusal (its `Response` envelope, `data` null): the
/// `code` and `message` for an error of kind `kind` (idmint's stable kind string) whose text is
/// `message`.
///
/// tinyid-server checks the caller first (`TinyIdTokenService.canVisit(bizType, token)`: the
/// pair must be a row of its `tiny_id_token` table) and answers `ErrorCode.TOKEN_ERR`, code 5
/// `"token is error"`, when it is not: a missing or wrong token, and a bizType no token row
/// names, which is every bizType its tables do not know. So idmint answers code 5 with Tinyid's
/// text for `unauthorized`, `forbidden` and `unknown_tag`. Anything else fails after that check,
/// where tinyid-server answers `ErrorCode.SYS_ERR`, code 6, with the exception's own message:
/// code 6 with idmint's message.
///
/// ```
/// use idmint_core::segment::{TinyidFailure, TINYID_SYS_ERROR, TINYID_TOKEN_ERROR};
/// let unknown = TinyidFailure::of("unknown_tag", "unknown segment tag `t`");
/// assert_eq!((unknown.code, unknown.message), (TINYID_TOKEN_ERROR, "token is error"));
/// let down = TinyidFailure::of("store_unavailable", "store unavailable: connection refused");
/// assert_eq!((down.code, down.message), (TINYID_SYS_ERROR, "store unavailable: connection refused"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TinyidFailure<'a> {
    /// Tinyid's `code`: [`TINYID_TOKEN_ERROR`] or [`TINYID_SYS_ERROR`].
    pub code: u16,
    /// Tinyid's `message`.
    pub message: &'a str,
}

/// Tinyid's `ErrorCode.TOKEN_ERR` code: the caller may not draw from this bizType.
///
/// ```
/// assert_eq!(idmint_core::segment::TINYID_TOKEN_ERROR, 5);
/// ```
pub const TINYID_TOKEN_ERROR: u16 = 5;

/// Tinyid's `ErrorCode.SYS_ERR` code: drawing failed.
///
/// ```
/// assert_eq!(idmint_core::segment::TINYID_SYS_ERROR, 6);
/// ```
pub const TINYID_SYS_ERROR: u16 = 6;

/// The kinds Tinyid refuses at its token check (see [`TinyidFailure`]).
const TINYID_TOKEN_KINDS: &[&str] = &["unauthorized", "forbidden", "unknown_tag"];

impl<'a> TinyidFailure<'a> {
    /// The failure Tinyid answers for an error of `kind` with text `message` (see
    /// [`TinyidFailure`]).
    ///
    /// ```
    /// let f = idmint_core::segment::TinyidFailure::of("forbidden", "token `t` lacks mint:segment:x");
    /// assert_eq!((f.code, f.message), (5, "token is error"));
    /// ```
    pub fn of(kind: &str, message: &'a str) -> TinyidFailure<'a> {
        if TINYID_TOKEN_KINDS.contains(&kind) {
            TinyidFailure {
                code: TINYID_TOKEN_ERROR,
                message: "token is error",
            }
        } else {
            TinyidFailure {
                code: TINYID_SYS_ERROR,
                message,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// tinyid-client's `SegmentId` (tinyid-base), step for step: `init()` then `nextId()`
    /// until it passes `maxId`.
    fn java_segment_ids(s: &TinyidSegment) -> Vec<u64> {
        let (delta, remainder) = (s.delta as i64, s.remainder as i64);
        let mut current = s.current_id as i64;
        if current % delta != remainder {
            for _ in 0..=delta {
                current += 1;
                if current % delta == remainder {
                    current -= delta;
                    break;
                }
            }
        }
        let mut out = Vec::new();
        loop {
            current += delta;
            if current > s.max_id as i64 {
                return out;
            }
            out.push(current as u64);
        }
    }

    #[test]
    fn segments_give_what_the_java_client_issues() {
        for delta in 1..=7 {
            for remainder in 0..delta {
                let rule = TinyidRule::new(50, delta, remainder).unwrap();
                for start in 1..=30 {
                    for len in [delta, 1 + delta, 11, 50] {
                        let range = IdRange::new(start, start + len).unwrap();
                        let s = rule.segment(range);
                        let ours: Vec<u64> = s.ids().collect();
                        assert_eq!(ours, java_segment_ids(&s), "{s:?}");
                        let brute: Vec<u64> =
                            range.into_iter().filter(|&i| rule.holds(i)).collect();
                        assert_eq!(ours, brute, "{s:?}");
                        assert_eq!(rule.ids_in(range).collect::<Vec<_>>(), brute);
                        assert!(!ours.is_empty(), "a segment at least delta wide: {s:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn batches_hold_exactly_the_count() {
        let rule = TinyidRule::new(1000, 5, 3).unwrap();
        for start in 1..=20 {
            for count in 1..=9 {
                let range = IdRange::new(start, start + rule.span(count).unwrap()).unwrap();
                assert_eq!(rule.ids_in(range).count() as u64, count);
            }
        }
        assert!(rule.span(u64::MAX).is_err());
        assert!(rule.span(MAX_STEP).is_err());
    }

    #[test]
    fn bounds() {
        assert!(TinyidRule::new(TINYID_MAX_DELTA, TINYID_MAX_DELTA, TINYID_MAX_DELTA - 1).is_ok());
        assert!(TinyidRule::new(MAX_STEP, TINYID_MAX_DELTA + 1, 0).is_err());
        assert!(TinyidRule::new(MAX_STEP + 1, 1, 0).is_err());
        assert!(TinyidRule::new(0, 1, 0).is_err());
        let r = TinyidRule::new(10, 3, 0).unwrap();
        let end = IdRange::new(u64::MAX - 2, u64::MAX).unwrap();
        assert_eq!(
            r.ids_in(end).collect::<Vec<_>>(),
            (u64::MAX - 2..u64::MAX)
                .filter(|i| i % 3 == 0)
                .collect::<Vec<_>>()
        );
    }
}
