//! Order numbers: IDs formatted from a template of date parts, a node label, a zero-padded
//! sequence and literal text, with an optional check digit, and parsed back into their parts.
//!
//! # Template syntax (compatible with mooon-uniq-id's `%L%Y%M%D%m%5S`)
//!
//! | directive | width | meaning |
//! | --- | --- | --- |
//! | `%Y` | 4 | year |
//! | `%y` | 2 | year within its century (parsed back as 20yy) |
//! | `%M` | 2 | month, 01–12 |
//! | `%D` | 2 | day, 01–31 |
//! | `%H` | 2 | hour, 00–23 |
//! | `%m` | 2 | minute, 00–59 |
//! | `%s` | 2 | second, 00–59 |
//! | `%L` | label's length | the node label as given (ASCII letters and digits) |
//! | `%NL` | N | the label left-padded with `0` to N characters |
//! | `%NS` | N (1–19) | the sequence, zero-padded to N digits; exactly one per template |
//! | `%%` | 1 | a literal `%` |
//!
//! Anything else is literal text. Each directive may appear once. Date parts are read in the
//! template's time zone, a fixed UTC offset such as `+08:00` (IANA names would need the tz
//! database, which idmint leaves out to stay small and wasm-friendly; pick the offset your
//! business day follows).
//!
//! # Check digits
//!
//! [`CheckDigit::Luhn`] appends one digit, [`CheckDigit::Mod97`] two (ISO 7064 MOD 97-10, as in
//! IBANs). Both are computed over the formatted text read as digits: digits as they are,
//! letters as two digits each (`A`/`a` = 10 … `Z`/`z` = 35, as IBANs do), other characters
//! skipped. Luhn catches every single-digit typo and most swaps of neighbours; MOD 97-10 catches
//! every single typo and every swap of neighbours.
//!
//! # Collision-free widths
//!
//! A sequence of width N holds 10^N − 1 values per counter period: with a daily counter,
//! `%5S` allows 99,999 order numbers a day (per label, when each label has its own counter).
//! [`OrderNumbers`] returns [`Error::CounterOverflow`] rather than print a number that does
//! not fit. A snowflake ID as the sequence needs the width of the layout's largest ID (19
//! digits for 63 bits); [`Template::format_snowflake`] checks it, since truncating would
//! repeat numbers.

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};

use time::{Date, Month, OffsetDateTime, UtcOffset};

use crate::clock::Clock;
use crate::error::{escaped, quoted};
use crate::layout::Layout;
use crate::{Error, Result, MAX_TIME_MS};

/// Which check digits to append.
///
/// ```
/// use idmint_core::CheckDigit;
/// assert_eq!(CheckDigit::Luhn.compute("7992739871"), "3");
/// assert_eq!(CheckDigit::Mod97.compute("794"), "44"); // the example of ISO 7064
/// assert_eq!("mod97".parse::<CheckDigit>()?, CheckDigit::Mod97);
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum CheckDigit {
    /// No check digits.
    #[default]
    None,
    /// One Luhn (mod 10) digit.
    Luhn,
    /// Two ISO 7064 MOD 97-10 digits.
    Mod97,
}

impl CheckDigit {
    /// How many characters it appends.
    pub const fn len(self) -> usize {
        match self {
            CheckDigit::None => 0,
            CheckDigit::Luhn => 1,
            CheckDigit::Mod97 => 2,
        }
    }

    /// Whether it appends nothing.
    pub const fn is_empty(self) -> bool {
        matches!(self, CheckDigit::None)
    }

    /// The name, as [`FromStr`] reads it.
    pub const fn name(self) -> &'static str {
        match self {
            CheckDigit::None => "none",
            CheckDigit::Luhn => "luhn",
            CheckDigit::Mod97 => "mod97",
        }
    }

    /// The check digits for `payload` (see the module docs for how letters count).
    pub fn compute(self, payload: &str) -> String {
        let digits = payload_digits(payload);
        match self {
            CheckDigit::None => String::new(),
            CheckDigit::Luhn => {
                // The rightmost payload digit is doubled, since the check digit will follow it.
                let sum: u32 = digits
                    .iter()
                    .rev()
                    .enumerate()
                    .map(|(i, &d)| {
                        let d = d as u32;
                        if i % 2 == 0 {
                            let x = d * 2;
                            if x > 9 {
                                x - 9
                            } else {
                                x
                            }
                        } else {
                            d
                        }
                    })
                    .sum();
                ((10 - sum % 10) % 10).to_string()
            }
            CheckDigit::Mod97 => {
                let rem = digits
                    .iter()
                    .fold(0u32, |acc, &d| (acc * 10 + d as u32) % 97);
                format!("{:02}", 98 - (rem * 100) % 97)
            }
        }
    }
}

fn payload_digits(payload: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() * 2);
    for c in payload.bytes() {
        match c {
            b'0'..=b'9' => out.push(c - b'0'),
            b'A'..=b'Z' | b'a'..=b'z' => {
                let v = c.to_ascii_uppercase() - b'A' + 10;
                out.push(v / 10);
                out.push(v % 10);
            }
            _ => {}
        }
    }
    out
}

impl fmt::Display for CheckDigit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for CheckDigit {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.trim() {
            "none" => Ok(CheckDigit::None),
            "luhn" => Ok(CheckDigit::Luhn),
            "mod97" => Ok(CheckDigit::Mod97),
            _ => Err(Error::InvalidArgument {
                name: "check_digit".into(),
                value: quoted(s),
                expected: "none, luhn or mod97".into(),
            }),
        }
    }
}

/// Read a fixed UTC offset: `Z`, `UTC`, `±HH`, `±HH:MM` or `±HHMM`, up to ±23:59.
///
/// ```
/// assert_eq!(idmint_core::parse_utc_offset("+08:00")?, 8 * 3600);
/// assert_eq!(idmint_core::parse_utc_offset("-0530")?, -(5 * 3600 + 30 * 60));
/// assert_eq!(idmint_core::parse_utc_offset("Asia/Shanghai").unwrap_err().kind(), "invalid_argument");
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn parse_utc_offset(text: &str) -> Result<i32> {
    let t = text.trim();
    let bad = || {
        Error::InvalidArgument {
        name: "time zone".into(),
        value: quoted(text),
        expected: "a UTC offset: Z, UTC, +HH, +HH:MM or -HHMM up to ±23:59 (IANA names such as Asia/Shanghai are not supported)".into(),
    }
    };
    if t == "Z" || t.eq_ignore_ascii_case("utc") {
        return Ok(0);
    }
    let (sign, rest) = match t.as_bytes().first() {
        Some(b'+') => (1, &t[1..]),
        Some(b'-') => (-1, &t[1..]),
        _ => return Err(bad()),
    };
    let digits: String = match rest.len() {
        2 => format!("{rest}00"),
        4 => rest.to_string(),
        5 if rest.as_bytes()[2] == b':' => format!("{}{}", &rest[..2], &rest[3..]),
        _ => return Err(bad()),
    };
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let h: i32 = digits[..2].parse().map_err(|_| bad())?;
    let m: i32 = digits[2..].parse().map_err(|_| bad())?;
    if h > 23 || m > 59 {
        return Err(bad());
    }
    Ok(sign * (h * 3600 + m * 60))
}

fn format_offset(seconds: i32) -> String {
    let sign = if seconds < 0 { '-' } else { '+' };
    let a = seconds.unsigned_abs();
    format!("{sign}{:02}:{:02}", a / 3600, a / 60 % 60)
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Item {
    Literal(String),
    Year4,
    Year2,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    /// Padded width, or `None` for the label as given.
    Label(Option<u32>),
    Sequence(u32),
}

impl Item {
    fn describe(&self) -> &'static str {
        match self {
            Item::Literal(_) => "literal text",
            Item::Year4 => "4 digits of the year (%Y)",
            Item::Year2 => "2 digits of the year (%y)",
            Item::Month => "2 digits of the month (%M)",
            Item::Day => "2 digits of the day (%D)",
            Item::Hour => "2 digits of the hour (%H)",
            Item::Minute => "2 digits of the minute (%m)",
            Item::Second => "2 digits of the second (%s)",
            Item::Label(_) => "the label (%L)",
            Item::Sequence(_) => "the sequence (%S)",
        }
    }
}

/// The largest sequence width: 10^19 − 1 is the widest all-nines number in a `u64`.
pub const MAX_SEQUENCE_WIDTH: u32 = 19;

/// An order-number template (see the module docs for the syntax).
///
/// ```
/// use idmint_core::{CheckDigit, Template};
///
/// let t = Template::new("%L%Y%M%D%m%5S")?.label("7")?.offset("+08:00")?;
/// // 2024-05-21T16:30:00Z is 2024-05-22 00:30 in UTC+8.
/// let n = t.format(1_716_309_000_000, 42)?;
/// assert_eq!(n, "7202405223000042");
/// let parts = t.parse(&n)?;
/// assert_eq!((parts.year, parts.month, parts.day, parts.minute), (Some(2024), Some(5), Some(22), Some(30)));
/// assert_eq!(parts.label.as_deref(), Some("7"));
/// assert_eq!(parts.sequence, 42);
/// assert_eq!(t.capacity(), 99_999);
///
/// let checked = Template::new("SO-%y%M%D-%6S")?.check_digit(CheckDigit::Luhn);
/// let n = checked.format(1_716_309_000_000, 7)?;
/// assert_eq!(checked.parse(&n)?.sequence, 7);
/// let typo = n.replace("-000007", "-000008");
/// assert_eq!(checked.parse(&typo).unwrap_err().kind(), "check_digit_mismatch");
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    pattern: String,
    items: Vec<Item>,
    offset_s: i32,
    check: CheckDigit,
    label: Option<String>,
    width: u32,
}

/// The parts of a formatted order number, as [`Template::parse`] reads them; a part the
/// template does not have is `None`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TemplateParts {
    /// The year (`%Y`, or 2000 + `%y`).
    pub year: Option<i32>,
    /// The month, 1–12.
    pub month: Option<u8>,
    /// The day of the month.
    pub day: Option<u8>,
    /// The hour, 0–23.
    pub hour: Option<u8>,
    /// The minute.
    pub minute: Option<u8>,
    /// The second.
    pub second: Option<u8>,
    /// The label, as it appears (padding included).
    pub label: Option<String>,
    /// The sequence.
    pub sequence: u64,
    /// The check digits, already verified.
    pub check: Option<String>,
}

fn is_label_char(c: u8) -> bool {
    c.is_ascii_alphanumeric()
}

impl Template {
    /// Read a template; UTC, no label, no check digits until set.
    ///
    /// ```
    /// use idmint_core::Template;
    /// for bad in ["%Y%M%D", "%Y%5S%3S", "%0S", "%20S", "%Q%5S", "%5S%", "%Y%y%5S"] {
    ///     assert_eq!(Template::new(bad).unwrap_err().kind(), "invalid_template", "{bad}");
    /// }
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn new(pattern: &str) -> Result<Template> {
        let bad = |reason: String| Error::InvalidTemplate {
            template: escaped(pattern),
            reason,
        };
        let mut items: Vec<Item> = Vec::new();
        let mut literal = String::new();
        let mut chars = pattern.char_indices().peekable();
        while let Some((pos, c)) = chars.next() {
            if c != '%' {
                literal.push(c);
                continue;
            }
            let mut digits = String::new();
            while let Some(&(_, d)) = chars.peek().filter(|(_, d)| d.is_ascii_digit()) {
                digits.push(d);
                chars.next();
            }
            let Some((_, letter)) = chars.next() else {
                return Err(bad(format!(
                    "`%` at position {pos} ends the template; write `%%` for a literal %"
                )));
            };
            let width: Option<u32> = if digits.is_empty() {
                None
            } else {
                Some(digits.parse().unwrap_or(u32::MAX))
            };
            let item = match (letter, width) {
                ('%', None) => {
                    literal.push('%');
                    continue;
                }
                ('Y', None) => Item::Year4,
                ('y', None) => Item::Year2,
                ('M', None) => Item::Month,
                ('D', None) => Item::Day,
                ('H', None) => Item::Hour,
                ('m', None) => Item::Minute,
                ('s', None) => Item::Second,
                ('L', None) => Item::Label(None),
                ('L', Some(w)) if (1..=32).contains(&w) => Item::Label(Some(w)),
                ('L', Some(w)) => return Err(bad(format!("label width {w} at position {pos}: valid widths are 1..=32"))),
                ('S', Some(w)) if (1..=MAX_SEQUENCE_WIDTH).contains(&w) => Item::Sequence(w),
                ('S', Some(w)) => {
                    return Err(bad(format!(
                        "sequence width {w} at position {pos}: valid widths are 1..={MAX_SEQUENCE_WIDTH}"
                    )))
                }
                ('S', None) => {
                    return Err(bad(format!(
                        "`%S` at position {pos} needs a width, e.g. %5S for 5 digits"
                    )))
                }
                (other, _) => {
                    return Err(bad(format!(
                        "unknown directive `%{digits}{other}` at position {pos}; directives are %Y %y %M %D %H %m %s %L %NL %NS %%"
                    )))
                }
            };
            if items.iter().any(|i| {
                std::mem::discriminant(i) == std::mem::discriminant(&item)
                    || matches!(
                        (i, &item),
                        (Item::Year4, Item::Year2) | (Item::Year2, Item::Year4)
                    )
            }) {
                return Err(bad(format!("{} appears twice", item.describe())));
            }
            if !literal.is_empty() {
                items.push(Item::Literal(std::mem::take(&mut literal)));
            }
            items.push(item);
        }
        if !literal.is_empty() {
            items.push(Item::Literal(literal));
        }
        let Some(width) = items.iter().find_map(|i| match i {
            Item::Sequence(w) => Some(*w),
            _ => None,
        }) else {
            return Err(bad(
                "no sequence: add one with %NS, e.g. %5S for 5 digits".into()
            ));
        };
        Ok(Template {
            pattern: pattern.to_string(),
            items,
            offset_s: 0,
            check: CheckDigit::None,
            label: None,
            width,
        })
    }

    /// Read date parts in this time zone (see [`parse_utc_offset`] for the forms).
    pub fn offset(mut self, zone: &str) -> Result<Template> {
        self.offset_s = parse_utc_offset(zone)?;
        Ok(self)
    }

    /// Read date parts at this UTC offset in seconds (±86,399 at most).
    pub fn offset_seconds(mut self, seconds: i32) -> Result<Template> {
        if seconds.unsigned_abs() >= 86_400 || seconds % 60 != 0 {
            return Err(Error::InvalidArgument {
                name: "offset_seconds".into(),
                value: seconds.to_string(),
                expected: "a whole number of minutes within ±23:59 (±86340 s)".into(),
            });
        }
        self.offset_s = seconds;
        Ok(self)
    }

    /// Append check digits.
    pub fn check_digit(mut self, check: CheckDigit) -> Template {
        self.check = check;
        self
    }

    /// Set the node label (ASCII letters and digits; at most N characters for `%NL`).
    ///
    /// ```
    /// use idmint_core::Template;
    /// let t = Template::new("%3L-%4S")?.label("7")?;
    /// assert_eq!(t.format(0, 5)?, "007-0005");
    /// assert!(Template::new("%2L%4S")?.label("123").is_err());
    /// assert!(Template::new("%L%4S")?.label("a-b").is_err());
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn label(mut self, label: &str) -> Result<Template> {
        let bad = |expected: String| Error::InvalidArgument {
            name: "label".into(),
            value: quoted(label),
            expected,
        };
        if label.is_empty() || !label.bytes().all(is_label_char) {
            return Err(bad("1 or more ASCII letters and digits".into()));
        }
        if let Some(w) = self.label_width_declared() {
            if label.len() > w as usize {
                return Err(bad(format!(
                    "at most {w} characters, the width of %{w}L in the template"
                )));
            }
        }
        self.label = Some(label.to_string());
        Ok(self)
    }

    fn label_width_declared(&self) -> Option<u32> {
        self.items.iter().find_map(|i| match i {
            Item::Label(w) => *w,
            _ => None,
        })
    }

    fn has(&self, item: &Item) -> bool {
        self.items.contains(item)
    }

    /// The template as given.
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// The UTC offset of the date parts, in seconds.
    pub fn offset_s(&self) -> i32 {
        self.offset_s
    }

    /// The check digits appended.
    pub fn check(&self) -> CheckDigit {
        self.check
    }

    /// The sequence's width in digits.
    pub fn sequence_width(&self) -> u32 {
        self.width
    }

    /// The largest sequence that fits: 10^width − 1.
    pub fn capacity(&self) -> u64 {
        10u64.pow(self.width) - 1
    }

    /// Whether the template tells days apart: it has a year (`%Y` or `%y`), month and day.
    pub fn has_full_date(&self) -> bool {
        (self.has(&Item::Year4) || self.has(&Item::Year2))
            && self.has(&Item::Month)
            && self.has(&Item::Day)
    }

    fn local(&self, time_ms: u64) -> Result<OffsetDateTime> {
        let out_of_range = || Error::TimeOutOfRange {
            time_ms: time_ms as i128,
            min_ms: 0,
            end_ms: MAX_TIME_MS + 1,
        };
        if time_ms > MAX_TIME_MS {
            return Err(out_of_range());
        }
        let offset = UtcOffset::from_whole_seconds(self.offset_s).map_err(|_| out_of_range())?;
        OffsetDateTime::from_unix_timestamp_nanos(time_ms as i128 * 1_000_000)
            .ok()
            .and_then(|t| t.checked_to_offset(offset))
            .filter(|t| t.year() <= 9999)
            .ok_or_else(out_of_range)
    }

    /// The day of `time_ms` in the template's time zone, as `yyyymmdd` (the key of a daily
    /// counter).
    ///
    /// ```
    /// let t = idmint_core::Template::new("%Y%M%D%5S")?.offset("+08:00")?;
    /// assert_eq!(t.day_of(1_716_309_000_000)?, 20240522);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn day_of(&self, time_ms: u64) -> Result<u32> {
        let t = self.local(time_ms)?;
        Ok(t.year() as u32 * 10_000 + u8::from(t.month()) as u32 * 100 + t.day() as u32)
    }

    /// How a period is named in errors: `2024-05-22 (+08:00)`.
    fn period_name(&self, day: u32) -> String {
        format!(
            "{:04}-{:02}-{:02} ({})",
            day / 10_000,
            day / 100 % 100,
            day % 100,
            format_offset(self.offset_s)
        )
    }

    /// [`format`](Template::format) for a counter's value: a value past the sequence width is
    /// [`Error::CounterOverflow`] of the counter's `period`, since the counter, not the caller,
    /// ran out of numbers.
    pub(crate) fn format_counted(
        &self,
        time_ms: u64,
        value: u64,
        period: impl FnOnce() -> String,
    ) -> Result<String> {
        if value > self.capacity() {
            return Err(Error::CounterOverflow {
                period: period(),
                value,
                max: self.capacity(),
                width: self.width,
            });
        }
        self.format(time_ms, value)
    }

    /// Format the order number for `time_ms` (unix ms) and `sequence`.
    ///
    /// Errors: [`Error::ValueOutOfRange`] for a sequence wider than the template's, a missing
    /// label for `%L`, [`Error::TimeOutOfRange`] past year 9999.
    pub fn format(&self, time_ms: u64, sequence: u64) -> Result<String> {
        if sequence > self.capacity() {
            return Err(Error::ValueOutOfRange {
                field: "sequence".into(),
                value: sequence as i128,
                max: self.capacity(),
            });
        }
        let t = self.local(time_ms)?;
        let mut out = String::with_capacity(self.pattern.len() + 24);
        use std::fmt::Write;
        for item in &self.items {
            // Writing to a String cannot fail.
            let _ = match item {
                Item::Literal(s) => {
                    out.push_str(s);
                    Ok(())
                }
                Item::Year4 => write!(out, "{:04}", t.year()),
                Item::Year2 => write!(out, "{:02}", t.year() % 100),
                Item::Month => write!(out, "{:02}", u8::from(t.month())),
                Item::Day => write!(out, "{:02}", t.day()),
                Item::Hour => write!(out, "{:02}", t.hour()),
                Item::Minute => write!(out, "{:02}", t.minute()),
                Item::Second => write!(out, "{:02}", t.second()),
                Item::Label(w) => {
                    let label = self
                        .label
                        .as_deref()
                        .ok_or_else(|| Error::InvalidArgument {
                            name: "label".into(),
                            value: "none".into(),
                            expected: "a label for %L in the template (ASCII letters and digits)"
                                .into(),
                        })?;
                    write!(out, "{label:0>w$}", w = w.unwrap_or(0) as usize)
                }
                Item::Sequence(w) => write!(out, "{sequence:0w$}", w = *w as usize),
            };
        }
        let check = self.check.compute(&out);
        out.push_str(&check);
        Ok(out)
    }

    /// Format a snowflake ID of `layout`: the date parts are the ID's own time and the sequence
    /// is the whole ID, which is collision-free only if the sequence is wide enough for the
    /// layout's largest ID ([`Error::InvalidTemplate`] otherwise).
    ///
    /// ```
    /// use idmint_core::{Layout, Template};
    /// let layout = Layout::preset("twitter")?;
    /// let t = Template::new("%Y%M%D-%19S")?;
    /// assert_eq!(t.format_snowflake(&layout, 1541815603606036480)?, "20220628-1541815603606036480");
    /// assert_eq!(Template::new("%Y%M%D-%12S")?.format_snowflake(&layout, 1).unwrap_err().kind(), "invalid_template");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn format_snowflake(&self, layout: &Layout, id: u64) -> Result<String> {
        let largest = if layout.total_bits() >= 64 {
            u64::MAX
        } else {
            (1u64 << layout.total_bits()) - 1
        };
        let needed = largest.to_string().len() as u32;
        if self.width < needed {
            return Err(Error::InvalidTemplate {
                template: escaped(&self.pattern),
                reason: format!(
                    "a snowflake sequence needs %{needed}S: this layout's IDs run to {largest}, and cutting them to {} digits would repeat numbers",
                    self.width
                ),
            });
        }
        let parts = layout.decompose(id)?;
        self.format(parts.time_ms, id)
    }

    /// Read a formatted order number back into its parts, verifying check digits.
    ///
    /// Errors: [`Error::InvalidId`] naming the position and the part expected there;
    /// [`Error::CheckDigitMismatch`] for a typo the check digits catch.
    pub fn parse(&self, text: &str) -> Result<TemplateParts> {
        let bad = |reason: String| Error::invalid_id(escaped(text), reason);
        let bytes = text.as_bytes();
        let clen = self.check.len();
        if bytes.len() < clen {
            return Err(bad("too short to hold its check digits".into()));
        }
        let (body, check) = text.split_at(
            text.len()
                .checked_sub(clen)
                .filter(|&i| text.is_char_boundary(i))
                .ok_or_else(|| bad("the check digits are not digits".into()))?,
        );
        let mut parts = TemplateParts::default();
        let body_text = body;
        let body = body.as_bytes();
        let mut pos = 0usize;
        let take = |pos: &mut usize, n: usize, what: &Item| -> Result<&[u8]> {
            let end = *pos + n;
            let field = body.get(*pos..end).ok_or_else(|| {
                bad(format!(
                    "ends at position {} where {} should be",
                    body.len(),
                    what.describe()
                ))
            })?;
            *pos = end;
            Ok(field)
        };
        let number = |pos: &mut usize, n: usize, what: &Item| -> Result<u64> {
            let start = *pos;
            let field = take(pos, n, what)?;
            if !field.iter().all(u8::is_ascii_digit) {
                return Err(bad(format!(
                    "position {start}: expected {}, found {}",
                    what.describe(),
                    quoted(&String::from_utf8_lossy(field))
                )));
            }
            Ok(field
                .iter()
                .fold(0u64, |acc, &d| acc * 10 + (d - b'0') as u64))
        };
        for item in &self.items {
            let start = pos;
            match item {
                Item::Literal(s) => {
                    let field = take(&mut pos, s.len(), item)?;
                    if field != s.as_bytes() {
                        return Err(bad(format!(
                            "position {start}: expected {}, found {}",
                            quoted(s),
                            quoted(&String::from_utf8_lossy(field))
                        )));
                    }
                }
                Item::Year4 => parts.year = Some(number(&mut pos, 4, item)? as i32),
                Item::Year2 => parts.year = Some(2000 + number(&mut pos, 2, item)? as i32),
                Item::Month => parts.month = Some(number(&mut pos, 2, item)? as u8),
                Item::Day => parts.day = Some(number(&mut pos, 2, item)? as u8),
                Item::Hour => parts.hour = Some(number(&mut pos, 2, item)? as u8),
                Item::Minute => parts.minute = Some(number(&mut pos, 2, item)? as u8),
                Item::Second => parts.second = Some(number(&mut pos, 2, item)? as u8),
                Item::Label(w) => {
                    let n = match (w, &self.label) {
                        (Some(w), _) => *w as usize,
                        (None, Some(l)) => l.len(),
                        (None, None) => return Err(Error::InvalidArgument {
                            name: "label".into(),
                            value: "none".into(),
                            expected:
                                "a label, whose length is the width of %L when parsing (or use %NL)"
                                    .into(),
                        }),
                    };
                    let field = take(&mut pos, n, item)?;
                    if !field.iter().all(|&c| is_label_char(c)) {
                        return Err(bad(format!(
                            "position {start}: expected {} ({n} letters or digits), found {}",
                            item.describe(),
                            quoted(&String::from_utf8_lossy(field))
                        )));
                    }
                    parts.label = Some(String::from_utf8_lossy(field).into_owned());
                }
                Item::Sequence(w) => parts.sequence = number(&mut pos, *w as usize, item)?,
            }
        }
        if pos != body.len() {
            return Err(bad(format!(
                "{} characters left over after position {pos}; the template {} makes {pos}{}",
                body.len() - pos,
                quoted(&self.pattern),
                if clen > 0 {
                    format!(" plus {clen} check digits")
                } else {
                    String::new()
                }
            )));
        }
        self.check_ranges(&parts).map_err(bad)?;
        // Check digits last: a text that does not fit the template is reported as such.
        if clen > 0 {
            if !check.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad(format!(
                    "the last {clen} characters, {}, should be {} check digits",
                    quoted(check),
                    self.check
                )));
            }
            let expected = self.check.compute(body_text);
            if expected != check {
                return Err(Error::CheckDigitMismatch {
                    id: escaped(text),
                    expected,
                    found: check.to_string(),
                });
            }
            parts.check = Some(check.to_string());
        }
        Ok(parts)
    }

    fn check_ranges(&self, p: &TemplateParts) -> Result<(), String> {
        let out = |what: &str, v: u8, range: &str| Err(format!("{what} {v} is not in {range}"));
        if let Some(m) = p.month {
            if !(1..=12).contains(&m) {
                return out("month", m, "01..=12");
            }
        }
        if let Some(d) = p.day {
            let max = match (p.year, p.month.and_then(|m| Month::try_from(m).ok())) {
                (Some(y), Some(m)) => m.length(y),
                (None, Some(m)) => m.length(2000), // a leap year: 29 February may be meant
                _ => 31,
            };
            if d == 0 || d > max {
                return out("day", d, &format!("01..={max:02}"));
            }
        }
        for (what, v, max) in [
            ("hour", p.hour, 23),
            ("minute", p.minute, 59),
            ("second", p.second, 59),
        ] {
            if let Some(v) = v.filter(|&v| v > max) {
                return out(what, v, &format!("00..={max}"));
            }
        }
        if let (Some(y), Some(m), Some(d)) = (p.year, p.month, p.day) {
            Month::try_from(m)
                .ok()
                .and_then(|m| Date::from_calendar_date(y, m, d).ok())
                .ok_or_else(|| format!("{y:04}-{m:02}-{d:02} is not a date"))?;
        }
        Ok(())
    }
}

impl FromStr for Template {
    type Err = Error;
    fn from_str(s: &str) -> Result<Template> {
        Template::new(s)
    }
}

/// A counter per day that starts at 1 each day: the sequence source of daily order numbers.
///
/// `day` is `yyyymmdd` in the template's time zone ([`Template::day_of`]). Implementations:
/// [`MemoryDailyCounter`] (one process); with feature `segment`, counters shared across
/// processes: a tag per day in a segment store or `INCR` on a key per day in Redis
/// (`segment::open_daily_counter` opens one by URL; see `docs/formats.md`).
pub trait DailyCounter: Send + Sync {
    /// The next value for `day`: 1 on the first call of a day, then 2, 3, …
    ///
    /// A day earlier than one already counted may be refused with
    /// [`Error::ClockMovedBackwards`]; [`OrderNumbers`] then reads the clock again.
    fn next(&self, day: u32) -> Result<u64>;
}

impl fmt::Debug for dyn DailyCounter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Counters hold connections, not state worth printing; this lets results holding one
        // be unwrapped.
        f.write_str("DailyCounter")
    }
}

impl<D: DailyCounter + ?Sized> DailyCounter for std::sync::Arc<D> {
    fn next(&self, day: u32) -> Result<u64> {
        (**self).next(day)
    }
}

impl<D: DailyCounter + ?Sized> DailyCounter for &D {
    fn next(&self, day: u32) -> Result<u64> {
        (**self).next(day)
    }
}

const DAY_SHIFT: u32 = 36;
const COUNT_MASK: u64 = (1 << DAY_SHIFT) - 1;

/// A daily counter in memory: one atomic word holding the day and its count, lock-free. For
/// tests and single-process use: two processes each with their own counter repeat numbers
/// unless their templates carry different labels, and in the child of a `fork()` it refuses
/// ([`Error::Forked`]) rather than count on from the parent's numbers.
///
/// ```
/// use idmint_core::{DailyCounter, MemoryDailyCounter};
/// let c = MemoryDailyCounter::new();
/// assert_eq!(c.next(20240522)?, 1);
/// assert_eq!(c.next(20240522)?, 2);
/// assert_eq!(c.next(20240523)?, 1);
/// assert_eq!(c.next(20240522).unwrap_err().kind(), "clock_moved_backwards");
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Debug)]
pub struct MemoryDailyCounter {
    // day << 36 | last value issued that day (up to 2^36 - 1 a day).
    state: AtomicU64,
    /// The fork generation the count belongs to.
    born: u64,
}

impl Default for MemoryDailyCounter {
    fn default() -> Self {
        MemoryDailyCounter {
            state: AtomicU64::new(0),
            born: crate::fork::watch(),
        }
    }
}

impl MemoryDailyCounter {
    /// A counter that has counted nothing.
    pub fn new() -> Self {
        Self::default()
    }

    /// A counter whose next value on `day` (`yyyymmdd`) is `first` (e.g. to resume after a
    /// restart from a number stored elsewhere).
    ///
    /// Both are taken as any whole number, as bindings receive them, so that a day that is not a
    /// `u32` or a `first` outside `1..=2^36-1` is the one `invalid_argument` error that shows the
    /// value as given.
    ///
    /// ```
    /// use idmint_core::{DailyCounter, MemoryDailyCounter};
    /// let c = MemoryDailyCounter::starting_at(20240522, 500)?;
    /// assert_eq!(c.next(20240522)?, 500);
    /// let err = MemoryDailyCounter::starting_at(20240522, -3).unwrap_err();
    /// assert!(err.to_string().starts_with("invalid argument `first` = -3: 1..=68719476735:"));
    /// assert_eq!(MemoryDailyCounter::starting_at(-1, 1).unwrap_err().kind(), "invalid_argument");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn starting_at(day: impl Into<i128>, first: impl Into<i128>) -> Result<Self> {
        let day = day.into();
        let day = u32::try_from(day).map_err(|_| Error::InvalidArgument {
            name: "day".into(),
            value: day.to_string(),
            expected: "yyyymmdd, a day in the template's offset (Template.dayOf)".into(),
        })?;
        let first = first.into();
        let first = match u64::try_from(first) {
            Ok(f) if (1..=COUNT_MASK).contains(&f) => f,
            _ => {
                return Err(Error::InvalidArgument {
                    name: "first".into(),
                    value: first.to_string(),
                    expected: format!("1..={COUNT_MASK}: a daily counter starts at 1"),
                })
            }
        };
        Ok(MemoryDailyCounter {
            state: AtomicU64::new(((day as u64) << DAY_SHIFT) | (first - 1)),
            born: crate::fork::watch(),
        })
    }
}

fn days_between(earlier: u32, later: u32) -> u64 {
    let date = |d: u32| {
        Month::try_from((d / 100 % 100) as u8)
            .ok()
            .and_then(|m| Date::from_calendar_date((d / 10_000) as i32, m, (d % 100) as u8).ok())
    };
    match (date(earlier), date(later)) {
        (Some(a), Some(b)) => (b - a).whole_days().max(0) as u64,
        _ => 0,
    }
}

impl MemoryDailyCounter {
    /// The error of a daily counter asked for `day` after it moved on to the later `current`.
    pub(crate) fn refuse_earlier(day: u32, current: u32) -> Error {
        Error::ClockMovedBackwards {
            behind_ms: days_between(day, current) * 86_400_000,
            allowed_ms: 0,
        }
    }
}

impl DailyCounter for MemoryDailyCounter {
    fn next(&self, day: u32) -> Result<u64> {
        if crate::fork::since(self.born) {
            return Err(Error::Forked {
                what: "in-memory daily counter".into(),
                remedy:
                    "its count is the parent's: make a new one in the child, or count in a store"
                        .into(),
            });
        }
        loop {
            let s = self.state.load(Ordering::Acquire);
            let current = (s >> DAY_SHIFT) as u32;
            let new = if day == current {
                if s & COUNT_MASK == COUNT_MASK {
                    return Err(Error::CounterOverflow {
                        period: format!("day {day}"),
                        value: COUNT_MASK + 1,
                        max: COUNT_MASK,
                        width: 11,
                    });
                }
                s + 1
            } else if day > current {
                ((day as u64) << DAY_SHIFT) | 1
            } else {
                return Err(Self::refuse_earlier(day, current));
            };
            if self
                .state
                .compare_exchange_weak(s, new, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
            {
                return Ok(new & COUNT_MASK);
            }
        }
    }
}

/// Daily order numbers: a [`Template`] filled from a [`Clock`] and a [`DailyCounter`].
///
/// ```
/// use idmint_core::{ManualClock, MemoryDailyCounter, OrderNumbers, Template};
///
/// let clock = ManualClock::new(1_716_309_000_000); // 2024-05-22 00:30 at +08:00
/// let t = Template::new("%Y%M%D%3S")?.offset("+08:00")?;
/// let orders = OrderNumbers::new(t, MemoryDailyCounter::new(), &clock)?;
/// assert_eq!(orders.next()?, "20240522001");
/// assert_eq!(orders.next()?, "20240522002");
/// clock.advance_ms(86_400_000);
/// assert_eq!(orders.next()?, "20240523001");
/// for _ in 2..=999 { orders.next()?; }
/// let err = orders.next().unwrap_err();
/// assert_eq!(err.kind(), "counter_overflow");
/// assert!(err.to_string().contains("2024-05-23 (+08:00)"), "{err}");
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub struct OrderNumbers<D: DailyCounter, C: Clock> {
    template: Template,
    counter: D,
    clock: C,
}

impl<D: DailyCounter, C: Clock> OrderNumbers<D, C> {
    /// Daily order numbers; the template must tell days apart (`%Y`/`%y`, `%M` and `%D`),
    /// since the counter restarts each day.
    pub fn new(template: Template, counter: D, clock: C) -> Result<Self> {
        if !template.has_full_date() {
            return Err(Error::InvalidTemplate {
                template: escaped(&template.pattern),
                reason: "a daily counter restarts at 1 each day, so the template needs %Y (or %y), %M and %D to keep days apart".into(),
            });
        }
        Ok(OrderNumbers {
            template,
            counter,
            clock,
        })
    }

    /// The template.
    pub fn template(&self) -> &Template {
        &self.template
    }

    /// The next order number.
    ///
    /// Errors: [`Error::CounterOverflow`] once the day's counter passes the sequence width;
    /// the counter's own errors.
    ///
    /// ```
    /// use idmint_core::{ManualClock, MemoryDailyCounter, OrderNumbers, Template};
    /// let orders = OrderNumbers::new(Template::new("%Y%M%D%3S")?, MemoryDailyCounter::new(), ManualClock::new(0))?;
    /// assert_eq!(orders.next()?, "19700101001");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn next(&self) -> Result<String> {
        let mut tries = 0;
        loop {
            match self.next_at(self.clock.now_ms()) {
                // Another thread crossed midnight between our clock read and our count: read
                // the clock again, which is in the new day by now.
                Err(Error::ClockMovedBackwards { .. }) if tries < 2 => tries += 1,
                other => return other,
            }
        }
    }

    /// The next order number dated `time_ms` (unix ms) rather than the clock's time, e.g. an
    /// order's own time; it counts in that day.
    ///
    /// Errors: as [`next`](OrderNumbers::next), and [`Error::ClockMovedBackwards`] for a day
    /// before one the counter has moved past.
    ///
    /// ```
    /// use idmint_core::{MemoryDailyCounter, OrderNumbers, Template, WallClock};
    /// let orders = OrderNumbers::new(Template::new("%Y%M%D%3S")?, MemoryDailyCounter::new(), WallClock)?;
    /// assert_eq!(orders.next_at(1_716_309_000_000)?, "20240521001");
    /// assert_eq!(orders.next_at(1_716_309_000_000)?, "20240521002");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn next_at(&self, time_ms: u64) -> Result<String> {
        let day = self.template.day_of(time_ms)?;
        let value = self.counter.next(day)?;
        self.template
            .format_counted(time_ms, value, || self.template.period_name(day))
    }
}

impl<D: DailyCounter, C: Clock> fmt::Debug for OrderNumbers<D, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OrderNumbers")
            .field("template", &self.template)
            .finish_non_exhaustive()
    }
}
