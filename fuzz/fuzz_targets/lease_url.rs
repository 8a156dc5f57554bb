//! Worker-lease store URLs: as the segment store URLs, with the lease defaults.
#![no_main]

use idmint_core::fuzzing::{driver_parse, lease_url, reapply};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(url) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(plan) = lease_url(url) {
        let again = reapply(&plan.options, &plan.driver_url).expect("the driver URL reads again");
        assert_eq!(again, (plan.options.clone(), plan.driver_url.clone()), "{url:?}");
        let _ = driver_parse(&plan);
    }
});
