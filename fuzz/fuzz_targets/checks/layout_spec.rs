//! The layout spec parser: a spec it accepts prints back (`Layout::spec`) as a spec that parses
//! to the same layout, and an ID that decomposes composes back to itself.
//! Input: the spec, then optionally a line with a decimal ID.

use idmint_core::Layout;

/// Runs the assertions above on one input: a panic is a finding.
pub fn check(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (spec, id) = text.split_once('\n').unwrap_or((text, ""));
    let Ok(layout) = Layout::parse(spec) else {
        return;
    };
    let printed = layout.spec();
    let again = Layout::parse(&printed).expect("a printed spec parses");
    assert_eq!(
        again.without_preset_name(),
        layout.without_preset_name(),
        "{spec:?} -> {printed:?}"
    );
    assert_eq!(again.spec(), printed);
    // 64 bits only for a layout that says `unsigned`.
    assert!(layout.total_bits() <= 63 || (layout.is_unsigned() && layout.total_bits() == 64));
    if let Ok(id) = layout.parse_id(id.trim_end()) {
        if let Ok(parts) = layout.decompose(id) {
            assert_eq!(
                layout.compose(&parts).expect("decomposed parts compose"),
                id
            );
        }
    }
}
