//! Generator behaviour: every policy against an injected clock, uniqueness under threads,
//! and compose/decompose round trips over random layouts.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use idmint_core::{
    Clock, Error, Layout, ManualClock, OnExhausted, OnRollback, Snowflake, SnowflakeBuilder,
};
use proptest::prelude::*;

const T0: u64 = 1_700_000_000_000;

fn twitter(clock: &ManualClock) -> SnowflakeBuilder<&ManualClock> {
    Snowflake::builder(Layout::preset("twitter").unwrap())
        .node("datacenter", 1)
        .node("worker", 2)
        .clock(clock)
}

fn duplicates(ids: &mut [u64]) -> usize {
    ids.sort_unstable();
    ids.windows(2).filter(|w| w[0] == w[1]).count()
}

fn time_of(g: &Snowflake<impl Clock>, id: u64) -> u64 {
    g.layout().decompose(id).unwrap().time_ms
}

#[test]
fn ids_follow_the_clock_and_the_layout() {
    let clock = ManualClock::new(T0);
    let g = twitter(&clock).build().unwrap();
    let a = g.next_id().unwrap();
    let p = g.layout().decompose(a).unwrap();
    assert_eq!(
        (
            p.time_ms,
            p.node("datacenter"),
            p.node("worker"),
            p.sequence
        ),
        (T0, Some(1), Some(2), 0)
    );
    assert_eq!(
        g.layout().decompose(g.next_id().unwrap()).unwrap().sequence,
        1
    );
    clock.advance_ms(3);
    let p = g.layout().decompose(g.next_id().unwrap()).unwrap();
    assert_eq!((p.time_ms, p.sequence), (T0 + 3, 0));
}

#[test]
fn exhausted_sequence_waits_for_the_next_tick() {
    let clock = ManualClock::new(T0);
    let g = twitter(&clock).build().unwrap();
    let ids = g.next_ids(4096 * 3 + 5).unwrap();
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(clock.slept_ms(), 3, "one wait per full tick");
    assert_eq!(g.stats().waits, 3);
    assert_eq!(time_of(&g, *ids.last().unwrap()), T0 + 3);
    assert_eq!(
        g.stats().max_lead_ms,
        0,
        "Wait never runs ahead of the clock"
    );
}

#[test]
fn borrow_runs_ahead_by_at_most_its_bound_then_waits() {
    let clock = ManualClock::new(T0);
    let g = twitter(&clock)
        .on_exhausted(OnExhausted::Borrow {
            max_ahead: Duration::from_millis(5),
        })
        .build()
        .unwrap();
    // A frozen clock: 6 ticks (now + 5 ahead) are free, then each further tick costs a wait.
    let ids = g.next_ids(4096 * 6).unwrap();
    assert_eq!(clock.slept_ms(), 0);
    assert_eq!(time_of(&g, *ids.last().unwrap()), T0 + 5);
    assert_eq!(g.stats().lead_ms, 5);
    let mut last = *ids.last().unwrap();
    for _ in 0..200_000 {
        let id = g.next_id().unwrap();
        assert!(id > last);
        last = id;
        assert!(
            time_of(&g, id) <= clock.now_ms() + 5,
            "lead above the bound"
        );
    }
    assert_eq!(g.stats().max_lead_ms, 5);
    assert!(clock.slept_ms() > 0 && g.stats().waits > 0);
    assert_eq!(g.stats().rollbacks, 0, "a borrowed lead is not a rollback");
}

#[test]
fn rollback_error_says_how_far_back() {
    let clock = ManualClock::new(T0);
    let g = twitter(&clock).build().unwrap();
    let before = g.next_id().unwrap();
    clock.set_ms(T0 - 10_000);
    let err = g.next_id().unwrap_err();
    assert_eq!(
        err,
        Error::ClockMovedBackwards {
            behind_ms: 10_000,
            allowed_ms: 0
        }
    );
    assert!(err.to_string().contains("10000 ms behind"));
    assert_eq!(g.stats().rollbacks, 1);
    g.next_id().unwrap_err();
    assert_eq!(
        g.stats().rollbacks,
        1,
        "one event, however many calls see it"
    );
    clock.set_ms(T0);
    assert!(g.next_id().unwrap() > before);
}

#[test]
fn rollback_continue_keeps_issuing_unique_increasing_ids() {
    let clock = ManualClock::new(T0);
    let g = twitter(&clock)
        .on_rollback(OnRollback::Continue)
        .build()
        .unwrap();
    let mut ids = g.next_ids(1000).unwrap();
    clock.set_ms(T0 - 10_000);
    for _ in 0..100 {
        ids.extend(g.next_ids(1000).unwrap());
        clock.advance_ms(1);
    }
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(duplicates(&mut ids), 0);
    assert_eq!(clock.slept_ms(), 0, "Continue never waits");
    let s = g.stats();
    assert_eq!(s.rollbacks, 1);
    assert!(s.lead_ms > 9_000, "logical time stays ahead: {s:?}");
}

#[test]
fn rollback_wait_waits_within_its_bound_and_errors_beyond() {
    let clock = ManualClock::new(T0);
    let g = twitter(&clock)
        .on_rollback(OnRollback::Wait {
            max: Duration::from_secs(20),
        })
        .build()
        .unwrap();
    let before = g.next_id().unwrap();
    clock.set_ms(T0 - 10_000);
    let after = g.next_id().unwrap();
    assert!(after > before);
    assert_eq!(clock.slept_ms(), 10_000);
    assert_eq!(g.stats().rollbacks, 1);

    let clock = ManualClock::new(T0);
    let g = twitter(&clock)
        .on_rollback(OnRollback::Wait {
            max: Duration::from_secs(5),
        })
        .build()
        .unwrap();
    g.next_id().unwrap();
    clock.set_ms(T0 - 10_000);
    assert_eq!(
        g.next_id().unwrap_err(),
        Error::ClockMovedBackwards {
            behind_ms: 10_000,
            allowed_ms: 5_000
        }
    );
    assert_eq!(
        clock.slept_ms(),
        0,
        "no point waiting when the gap is known to be too long"
    );
}

#[test]
fn borrow_with_rollback_wait_never_leads_by_more_than_the_bound() {
    let clock = ManualClock::new(T0);
    let g = twitter(&clock)
        .on_exhausted(OnExhausted::Borrow {
            max_ahead: Duration::from_millis(50),
        })
        .on_rollback(OnRollback::Wait {
            max: Duration::from_secs(60),
        })
        .build()
        .unwrap();
    let mut last = 0;
    for step in 0..300_000u64 {
        if step == 100_000 {
            clock.set_ms(clock.now_ms() - 10_000);
        }
        if step % 1000 == 0 {
            clock.advance_ms(1);
        }
        let id = g.next_id().unwrap();
        assert!(id > last);
        last = id;
        assert!(time_of(&g, id) <= clock.now_ms() + 50);
    }
    assert!(g.stats().max_lead_ms <= 50);
    assert_eq!(g.stats().rollbacks, 1);
}

#[test]
fn sequence_above_the_node_field_still_increases() {
    let clock = ManualClock::new(T0);
    let g = Snowflake::builder(Layout::preset("sonyflake").unwrap())
        .node("machine", 65535)
        .clock(&clock)
        .build()
        .unwrap();
    let ids = g.next_ids(256 * 4).unwrap();
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(clock.slept_ms(), 30, "three 10 ms ticks filled");
    for id in ids {
        assert_eq!(
            g.layout().decompose(id).unwrap().node("machine"),
            Some(65535)
        );
    }
}

#[test]
fn refuses_to_mint_past_the_end_of_the_time_field() {
    let layout = Layout::parse("time:10@1ms,worker:1,sequence:2").unwrap();
    let clock = ManualClock::new(1022);
    let g = Snowflake::builder(layout.clone())
        .node("worker", 1)
        .clock(&clock)
        .build()
        .unwrap();
    assert_eq!(g.next_ids(8).unwrap().len(), 8, "ticks 1022 and 1023");
    let err = g.next_id().unwrap_err();
    assert_eq!(err.kind(), "layout_exhausted");

    let late = ManualClock::new(1024);
    let err = Snowflake::builder(layout)
        .node("worker", 1)
        .clock(&late)
        .build()
        .unwrap_err();
    assert_eq!(
        err,
        Error::LayoutExhausted {
            end_ms: 1024,
            end: "1970-01-01T00:00:01.024Z".into()
        }
    );
}

#[test]
fn baidu_preset_says_it_ran_out() {
    let err = Snowflake::builder(Layout::preset("baidu").unwrap())
        .node("worker", 1)
        .build()
        .unwrap_err();
    assert!(
        err.to_string().contains("2024-11-20T21:24:16.000Z"),
        "{err}"
    );
    let fresh = Layout::preset("baidu")
        .unwrap()
        .with_epoch_ms(1_735_689_600_000)
        .unwrap();
    let g = Snowflake::builder(fresh)
        .node("worker", 4_194_303)
        .build()
        .unwrap();
    assert!(g.next_id().unwrap() > 0);
}

#[test]
fn build_checks_nodes_and_epoch() {
    let clock = ManualClock::new(T0);
    let l = Layout::preset("twitter").unwrap();
    let build = |nodes: &[(&str, i128)]| {
        Snowflake::builder(l.clone())
            .nodes(nodes.iter().copied())
            .clock(&clock)
            .build()
            .unwrap_err()
    };
    assert_eq!(
        build(&[("datacenter", 1), ("worker", 32)]).to_string(),
        "worker value 32 is out of range: valid values are 0..=31"
    );
    assert_eq!(
        build(&[("datacenter", -1), ("worker", 0)]).kind(),
        "value_out_of_range"
    );
    assert_eq!(
        build(&[("datacenter", 1)]),
        Error::MissingField {
            field: "worker".into()
        }
    );
    let err = build(&[("datacenter", 1), ("worker", 1), ("shard", 1)]);
    assert_eq!(
        err.to_string(),
        "unknown field `shard`: this layout's node fields are datacenter, worker"
    );

    let future = l.with_epoch_ms(T0 + 1).unwrap();
    let err = Snowflake::builder(future)
        .node("datacenter", 0)
        .node("worker", 0)
        .clock(&clock)
        .build()
        .unwrap_err();
    assert_eq!(
        err,
        Error::EpochInFuture {
            epoch_ms: T0 + 1,
            now_ms: T0
        }
    );
}

#[test]
fn eight_threads_one_million_each_no_duplicates() {
    let g = Arc::new(
        Snowflake::builder(Layout::preset("twitter").unwrap())
            .node("datacenter", 31)
            .node("worker", 31)
            .build()
            .unwrap(),
    );
    let handles: Vec<_> = (0..8)
        .map(|_| {
            let g = Arc::clone(&g);
            std::thread::spawn(move || {
                let ids: Vec<u64> = (0..1_000_000).map(|_| g.next_id().unwrap()).collect();
                assert!(
                    ids.windows(2).all(|w| w[0] < w[1]),
                    "a thread saw IDs go down"
                );
                ids
            })
        })
        .collect();
    let mut all: Vec<u64> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    assert_eq!(all.len(), 8_000_000);
    assert_eq!(duplicates(&mut all), 0);
    assert_eq!(g.stats().issued, 8_000_000);
}

#[test]
fn batches_from_threads_under_a_clock_jumping_both_ways_no_duplicates() {
    let clock = Arc::new(ManualClock::new(T0));
    let g = Arc::new(
        Snowflake::builder(Layout::parse("time:41,worker:10,sequence:8").unwrap())
            .node("worker", 5)
            .on_rollback(OnRollback::Continue)
            .on_exhausted(OnExhausted::Borrow {
                max_ahead: Duration::from_millis(3),
            })
            .clock(Arc::clone(&clock))
            .build()
            .unwrap(),
    );
    let stop = Arc::new(AtomicBool::new(false));
    let jiggler = {
        let (clock, stop) = (Arc::clone(&clock), Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut i = 0u64;
            while !stop.load(Ordering::Relaxed) {
                i += 1;
                // Mostly forward, sometimes a step back of up to 40 ms.
                if i % 7 == 0 {
                    clock.set_ms(clock.now_ms().saturating_sub(i % 40));
                } else {
                    clock.advance_ms(1);
                }
                std::thread::yield_now();
            }
        })
    };
    let workers: Vec<_> = (0..4)
        .map(|t| {
            let g = Arc::clone(&g);
            std::thread::spawn(move || {
                let mut mine = Vec::new();
                for i in 0..2_000 {
                    if (i + t) % 2 == 0 {
                        mine.extend(g.next_ids(97).unwrap());
                    } else {
                        mine.push(g.next_id().unwrap());
                    }
                }
                assert!(mine.windows(2).all(|w| w[0] < w[1]));
                mine
            })
        })
        .collect();
    let mut all: Vec<u64> = workers
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    stop.store(true, Ordering::Relaxed);
    jiggler.join().unwrap();
    let n = all.len();
    assert_eq!(duplicates(&mut all), 0);
    assert_eq!(g.stats().issued, n as u64);
}

#[test]
fn spec_round_trips_through_display() {
    for spec in [
        "twitter",
        "sonyflake",
        "redis-lua",
        "baidu",
        "time:30@2s,region:3,zone:5,host:10,sequence:12,epoch=2020-01-01T00:00:00Z",
    ] {
        let l = Layout::parse(spec).unwrap();
        let again = Layout::parse(&l.to_string()).unwrap();
        assert_eq!(l.without_preset_name(), again);
    }
    let ids: HashSet<_> = ["twitter", "sonyflake"]
        .iter()
        .map(|p| Layout::preset(p).unwrap().spec())
        .collect();
    assert_eq!(ids.len(), 2);
}

fn arb_layout() -> impl Strategy<Value = Layout> {
    (
        1u32..=45,
        prop::sample::select(vec![1u64, 10, 100, 1000, 7]),
        1usize..=3,
        0u64..=1_700_000_000_000,
    )
        .prop_flat_map(|(time_bits, tick, nodes, epoch)| {
            let room = 63 - time_bits;
            (
                Just((time_bits, tick, epoch)),
                prop::collection::vec(1u32..=12, nodes + 1),
                0..=nodes,
                Just(room),
            )
        })
        .prop_filter_map(
            "fits",
            |((time_bits, tick, epoch), widths, seq_at, room)| {
                if widths.iter().sum::<u32>() > room {
                    return None;
                }
                let mut b = Layout::builder().time(time_bits, tick).epoch_ms(epoch);
                for (i, w) in widths.iter().enumerate() {
                    b = if i == seq_at {
                        b.sequence(*w)
                    } else {
                        b.node(&format!("n{i}"), *w)
                    };
                }
                b.build().ok()
            },
        )
}

proptest! {
    #[test]
    fn compose_then_decompose_round_trips(layout in arb_layout(), seed in any::<u64>()) {
        // Derive every part from the seed so each fits its field.
        let mut r = seed;
        let mut next = |max: u64| { r = r.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); (r >> 1) % (max + 1) };
        let time_ms = layout.epoch_ms() + next(layout.max_time_value()) * layout.tick_ms();
        let nodes: Vec<(String, u64)> = layout.node_fields().map(|f| (f.name().to_string(), next(f.max()))).collect();
        let sequence = next(layout.sequence_field().max());
        let parts = idmint_core::Parts { time_ms, nodes, sequence };
        let id = layout.compose(&parts).unwrap();
        prop_assert!(id <= layout.max_id());
        prop_assert_eq!(layout.decompose(id).unwrap(), parts);
        let spec_again = Layout::parse(&layout.to_string()).unwrap();
        prop_assert_eq!(spec_again.decompose(id).unwrap(), layout.decompose(id).unwrap());
    }

    #[test]
    fn decompose_then_compose_round_trips(layout in arb_layout(), raw in any::<u64>()) {
        let id = raw & layout.max_id();
        let parts = layout.decompose(id).unwrap();
        prop_assert_eq!(layout.compose(&parts).unwrap(), id);
        if layout.total_bits() < 63 {
            prop_assert_eq!(layout.decompose(layout.max_id() + 1).unwrap_err().kind(), "invalid_id");
        }
    }
}

#[test]
fn a_restart_resumed_after_the_last_id_never_reissues() {
    let before = ManualClock::new(T0 + 5_000);
    let first = twitter(&before).build().unwrap();
    let issued = first.next_ids(10_000).unwrap();
    let last = *issued.last().unwrap();
    // The restarted process's clock is 5 s behind the first one's.
    let clock = ManualClock::new(T0);
    let waiting = twitter(&clock)
        .on_rollback(OnRollback::Wait {
            max: Duration::from_secs(10),
        })
        .resume_after(last)
        .build()
        .unwrap();
    assert!(waiting.next_id().unwrap() > last);
    assert!(clock.slept_ms() >= 5_000);

    let clock = ManualClock::new(T0);
    let going_on = twitter(&clock)
        .on_rollback(OnRollback::Continue)
        .resume_after(last)
        .build()
        .unwrap();
    let after = going_on.next_ids(10_000).unwrap();
    assert!(after[0] > last && after.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(clock.slept_ms(), 0);

    let err = twitter(&clock).resume_after(u64::MAX).build().unwrap_err();
    assert_eq!(err.kind(), "invalid_id");
}
