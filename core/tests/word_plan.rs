//! `Layout::word_plan` reads every part of an ID as `Layout::decompose` does, from the ID's two
//! 32-bit halves (how the JS packages split IDs without a call into the core).

use idmint_core::{Layout, WordSlot};

fn read(s: &WordSlot, id: u64) -> f64 {
    let (lo, hi) = (id as u32, (id >> 32) as u32);
    // In u32 as JS's `>>>` and `&` then `>>> 0`.
    (((lo >> s.lo_shift) & s.lo_mask) as f64 + ((hi >> s.hi_shift) & s.hi_mask) as f64 * s.hi_scale)
        * s.scale
        + s.offset
}

#[test]
fn word_plan_matches_decompose() {
    let specs = [
        "twitter",
        "sonyflake",
        "redis-lua",
        "baidu",
        "time:30@1s,n:1,sequence:32",
        "time:20@1s,big:30,sequence:13",
        "time:10@1s,sequence:1,node:40",
        "time:41,worker:4,sequence:18",
    ];
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for spec in specs {
        let l = Layout::parse(spec).unwrap();
        let plan = l.word_plan().unwrap_or_else(|| panic!("{spec}: a plan"));
        assert_eq!(plan.len(), l.fields().len() + 1);
        let mut ids = vec![0, 1, l.max_id(), l.max_id() >> 1];
        for _ in 0..10_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ids.push(x & l.max_id());
        }
        for id in ids {
            let p = l.decompose(id).unwrap();
            assert_eq!(read(&plan[0], id), p.time_ms as f64, "{spec} {id} time");
            let mut nodes = p.nodes.iter();
            for (f, s) in l.fields().iter().zip(&plan[1..]) {
                let want = if f.name() == "sequence" {
                    p.sequence
                } else {
                    nodes.next().unwrap().1
                };
                assert_eq!(read(s, id), want as f64, "{spec} {id} {}", f.name());
            }
        }
    }
}

#[test]
fn no_plan_where_an_f64_is_not_exact() {
    assert!(Layout::parse("time:8@1s,wide:54,sequence:1")
        .unwrap()
        .word_plan()
        .is_none());
}
