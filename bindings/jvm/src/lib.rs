//! # idmint-jvm
//!
//! The uniffi glue that carries [`idmint_core`] to the JVM. It holds conversion only: Java
//! `long`/`int` in, checked by the core's wide entry points (a negative `long` ID is an
//! `invalid_id` error, never a wrapped `u64`); core values out as `i64`, which they fit
//! (layouts are at most 63 bits, times at most year 9999) except where the core covers all 64
//! bits (a decoded short string, a parsed 19-digit sequence): a value above 2^63-1 is then an
//! `invalid_id` error, never a negative wrap. UUIDs cross as their two 64-bit halves, the way
//! `java.util.UUID` holds them. Every core error crosses as
//! an [`FfiError`] with the core's stable [`idmint_core::Error::kind`] and message; the Java
//! facade (`java/`, package `io.idmint`) turns the kind into one unchecked exception class.
//!
//! The generated Java (uniffi-bindgen-java 0.3.1 over JNA, package `io.idmint.ffi`) is internal:
//! users call the facade.

uniffi::setup_scaffolding!();

mod convert;
mod errors;
pub mod fast;
mod formats;
mod jni;
mod layout;
mod lease;
mod metrics;
mod obfuscate;
mod objectid;
mod plan;
mod redis_snowflake;
mod segment;
mod shortid;
mod snowflake;
mod stores;
mod template;
mod uuid7;

// The uniffi items of each module, at the crate root as before the split into modules.
pub use errors::*;
pub use fast::take_fast_error;
pub use formats::*;
pub use layout::*;
pub use lease::*;
pub use metrics::*;
pub use obfuscate::*;
pub use objectid::*;
pub use plan::*;
pub use segment::*;
pub use shortid::*;
pub use snowflake::*;
pub use stores::library_loaded;
pub use template::*;
pub use uuid7::*;

#[cfg(test)]
mod tests {
    use std::fmt;

    use super::*;

    fn kind<T: fmt::Debug>(r: Result<T>) -> String {
        r.unwrap_err().kind()
    }

    #[test]
    fn negative_ids_and_counts_are_typed_errors() {
        let l = Layout::parse("twitter".into(), None).unwrap();
        assert_eq!(kind(l.decompose(-1)), "invalid_id");
        let g = Snowflake::new(
            l,
            vec![
                NodeValue {
                    name: "datacenter".into(),
                    value: 1,
                },
                NodeValue {
                    name: "worker".into(),
                    value: 2,
                },
            ],
            false,
            Some("wait".into()),
            Some("error".into()),
            None,
            None,
            None,
            None,
            None,
            false,
        )
        .unwrap();
        assert_eq!(kind(g.next_ids(-1)), "invalid_argument");
        assert_eq!(g.next_ids(3).unwrap().len(), 3);

        let h = g.fast_handle();
        let a = unsafe { fast::idmint_jvm_fast_next_id(h) };
        let mut out = [0i64; 5];
        assert_eq!(
            unsafe { fast::idmint_jvm_fast_next_ids(h, out.as_mut_ptr(), 5) },
            0
        );
        assert!(a >= 0 && out.windows(2).all(|w| w[0] < w[1]) && out[0] > a);
        assert_eq!(
            unsafe { fast::idmint_jvm_fast_next_ids(h, out.as_mut_ptr(), -1) },
            -1
        );
        assert_eq!(kind(take_fast_error()), "invalid_argument");
        assert!(take_fast_error().is_ok());
    }

    #[test]
    fn plan_and_migration_values_convert_without_wrapping() {
        // A negative long is named as given, not as the u64 stand-in.
        let e = plan(1, -5, 1, None, None).unwrap_err();
        assert_eq!(e.kind(), "invalid_argument");
        assert!(e.message().contains("`rate` = -5"), "{}", e.message());
        assert_eq!(kind(plan(1, 1, 1, Some(-1), None)), "invalid_argument");

        let discord = Layout::parse("discord".into(), None).unwrap();
        let later = Layout::parse(
            "time:41@1ms,worker:10,sequence:12,epoch=2024-01-01T00:00:00Z".into(),
            None,
        )
        .unwrap();
        // An unsigned layout's ID of 2^64-1 crosses as a long's bits, and back.
        let m = check_migration(
            discord.clone(),
            later.clone(),
            Some(-1),
            Some(1_767_225_600_000),
        );
        assert_eq!(m.unwrap().old_max, -1);
        let twitter = Layout::parse("twitter".into(), None).unwrap();
        assert_eq!(
            kind(check_migration(
                twitter,
                later,
                Some(-1),
                Some(1_767_225_600_000)
            )),
            "invalid_id"
        );

        let t = typeid_from_uuid("user".into(), -1, -1).unwrap();
        assert_eq!((t.msb, t.lsb, t.time_ms), (-1, -1, None));
        assert_eq!(typeid_parse(t.text.clone()).unwrap(), t);
        assert_eq!(
            kind(typeid_from_uuid("User".into(), 0, 0)),
            "invalid_argument"
        );
    }

    #[test]
    fn display_ids_convert_without_wrapping() {
        let enc = |e: &str| e.to_string();
        assert_eq!(kind(short_id_encode(-1, enc("base62"))), "invalid_id");
        assert_eq!(
            kind(short_id_decode(enc("LygHa16AHYF"), enc("base62"))),
            "invalid_id"
        );
        let max = short_id_encode(i64::MAX, enc("base32")).unwrap();
        assert_eq!(short_id_decode(max, enc("base32")).unwrap(), i64::MAX);
        assert_eq!(kind(short_id_encode(1, enc("base64"))), "invalid_argument");

        let ring = Keyring::parse("idmint-key-v1:000102030405060708090a0b0c0d0e0f".into()).unwrap();
        assert_eq!(kind(ring.obfuscate(-1)), "invalid_id");
        assert!(ring.reveal(300, 1).unwrap_err().message().contains("v300"));
        assert!(key_generate(-2).unwrap_err().message().contains("v-2"));

        let t = Template::new("%5S".into(), None, None, None).unwrap();
        assert!(t.format(-5, 1).unwrap_err().message().contains("-5"));
        assert!(t.format(0, -7).unwrap_err().message().contains("-7"));

        let gen = Uuid7Generator::new(None);
        let mut out = [0i64; 2];
        let rc = unsafe { fast::idmint_jvm_fast_uuid7_next(gen.fast_handle(), out.as_mut_ptr()) };
        assert_eq!(rc, 0);
        let info = uuid7_from_bits(out[0], out[1]).unwrap();
        assert_eq!((info.msb, info.lsb), (out[0], out[1]));
        let next = gen.next().unwrap();
        assert!((next.msb as u64, next.lsb as u64) > (out[0] as u64, out[1] as u64));
    }
}
