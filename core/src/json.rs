//! How idmint writes IDs in JSON, once for every writer: `idmint serve`'s `/v1` answers and
//! `idmint parse` alike.
//!
//! **64-bit integers are strings unless asked for as numbers** ([`IdsAs`]): a JavaScript reader
//! (and many others) reads every JSON number as a double and rounds one above 2^53 − 1 silently,
//! and snowflake IDs are about 2^60. [`IdsAs::Number`] writes them as numbers, digit for digit,
//! for readers that keep 64-bit integers (Go, Java, Python, `jq` 1.7+).
//!
//! **A decoded ID has one shape** ([`Decoded`]'s `Serialize`, feature `serde`), whatever its
//! format: the same seven keys, in this order, each always present (`null` where the format has
//! none):
//!
//! | key | JSON | what |
//! |---|---|---|
//! | `format` | string | [`Format::name`]: `snowflake`, `integer`, `objectid`, `uuid`, `ulid`, `ksuid`, `xid`, `tsid` |
//! | `id` | string | the canonical text |
//! | `value` | string, or number with [`IdsAs::Number`]; `null` | the ID as a 64-bit integer (snowflake, integer, TSID) |
//! | `time_ms` | number or `null` | unix milliseconds, floored; negative before 1970 |
//! | `time` | string or `null` | RFC 3339 UTC at the format's precision; `null` past the year 9999 |
//! | `layout` | string or `null` | the layout a snowflake was read with: its preset name, or its spec |
//! | `parts` | object | the named parts, in the order of the ID's bits: numbers, or text (hex bytes, names); a whole number above 2^53 − 1 (a UUIDv1's `timestamp`) is a decimal string unless [`IdsAs::Number`] |
//!
//! ```
//! # #[cfg(feature = "serde")] {
//! use idmint_core::formats::decode;
//! use idmint_core::json::IdsAs;
//! let d = decode("507f1f77bcf86cd799439011", None)?;
//! assert_eq!(
//!     serde_json::to_string(&d).unwrap(),
//!     r#"{"format":"objectid","id":"507f1f77bcf86cd799439011","value":null,"time_ms":1350508407000,"time":"2012-10-17T21:13:27Z","layout":null,"parts":{"time_s":1350508407,"random":"bcf86cd799","counter":4427793}}"#
//! );
//! let discord = idmint_core::Layout::preset("discord")?;
//! let d = decode("175928847299117063", Some(&discord))?;
//! let json = serde_json::to_string(&d.json(IdsAs::Number)).unwrap();
//! assert!(json.starts_with(r#"{"format":"snowflake","id":"175928847299117063","value":175928847299117063,"#));
//! # }
//! # Ok::<(), idmint_core::Error>(())
//! ```
//!
//! [`Decoded`]: crate::formats::Decoded
//! [`Format::name`]: crate::formats::Format::name

pub use ids::IdsAs;

/// `IdsAs` in a module of its own, so the serializer and the schema below use it without
/// using this facade.
mod ids {
    use std::fmt;

    use crate::error::quoted;
    use crate::Error;

    /// How a JSON answer writes 64-bit integers (the [module docs](super) say why): `?ids=` of
    /// `idmint serve`'s `/v1` API and `--ids` of `idmint parse`.
    ///
    /// ```
    /// use idmint_core::json::IdsAs;
    /// assert_eq!(IdsAs::default(), IdsAs::String);
    /// assert_eq!("number".parse::<IdsAs>()?, IdsAs::Number);
    /// assert!(IdsAs::String.quotes_ids());
    /// assert!(!IdsAs::String.quotes_part(1));
    /// assert!(IdsAs::String.quotes_part(1 << 53));
    /// assert!(!IdsAs::Number.quotes_ids());
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
    #[cfg_attr(feature = "serde", derive(serde::Deserialize))]
    #[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(
        feature = "openapi",
        schema(description = "How IDs are written in JSON: `string` (default) or `number`")
    )]
    pub enum IdsAs {
        /// `"123"`.
        #[default]
        String,
        /// `123`.
        Number,
    }

    impl IdsAs {
        /// Both, in the order of their names' documentation.
        ///
        /// ```
        /// assert_eq!(idmint_core::json::IdsAs::ALL.len(), 2);
        /// ```
        pub const ALL: [IdsAs; 2] = [IdsAs::String, IdsAs::Number];

        /// The name `?ids=` and `--ids` take.
        ///
        /// ```
        /// assert_eq!(idmint_core::json::IdsAs::Number.name(), "number");
        /// ```
        pub const fn name(self) -> &'static str {
            match self {
                IdsAs::String => "string",
                IdsAs::Number => "number",
            }
        }

        /// Whether IDs are written as decimal strings: every one of them, small or large, so that a
        /// field's type does not change with its value.
        ///
        /// ```
        /// assert!(idmint_core::json::IdsAs::String.quotes_ids());
        /// ```
        pub const fn quotes_ids(self) -> bool {
            matches!(self, IdsAs::String)
        }

        /// Whether a whole number that is not an ID (a node field, a counter, a 100-ns count) is
        /// written as a decimal string: only above 2^53 − 1, where a double would round it.
        ///
        /// ```
        /// use idmint_core::json::IdsAs;
        /// assert!(!IdsAs::String.quotes_part(idmint_core::args::MAX_EXACT_DOUBLE));
        /// assert!(!IdsAs::Number.quotes_part(u64::MAX));
        /// ```
        pub const fn quotes_part(self, value: u64) -> bool {
            matches!(self, IdsAs::String) && value > crate::args::MAX_EXACT_DOUBLE
        }
    }

    impl fmt::Display for IdsAs {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.name())
        }
    }

    impl std::str::FromStr for IdsAs {
        type Err = Error;

        /// A choice by its [`IdsAs::name`].
        ///
        /// ```
        /// let err = "numbers".parse::<idmint_core::json::IdsAs>().unwrap_err();
        /// assert_eq!(err.to_string(), "invalid argument `ids` = \"numbers\": string or number");
        /// ```
        fn from_str(s: &str) -> crate::Result<IdsAs> {
            IdsAs::ALL
                .into_iter()
                .find(|a| a.name() == s)
                .ok_or_else(|| Error::InvalidArgument {
                    name: "ids".into(),
                    value: quoted(s),
                    expected: "string or number".into(),
                })
        }
    }
}

#[cfg(feature = "serde")]
pub use decoded::DecodedJson;

#[cfg(feature = "serde")]
mod decoded {
    use serde::ser::{SerializeMap, SerializeStruct};
    use serde::{Serialize, Serializer};

    use super::IdsAs;
    use crate::formats::{Decoded, PartValue};

    /// A [`Decoded`] as JSON with 64-bit integers written as [`IdsAs`] says: the shape of the
    /// [module docs](super). [`Decoded`]'s own `Serialize` is this with [`IdsAs::String`].
    ///
    /// ```
    /// use idmint_core::{formats::decode, json::IdsAs};
    /// let d = decode("c232ab00-9414-11ec-b3c8-9f6bdeced846", None)?; // a UUIDv1
    /// let text = serde_json::to_string(&d.json(IdsAs::String)).unwrap();
    /// assert!(text.contains(r#""timestamp":"138648505420000000""#));
    /// let text = serde_json::to_string(&d.json(IdsAs::Number)).unwrap();
    /// assert!(text.contains(r#""timestamp":138648505420000000"#));
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    #[derive(Debug, Clone, Copy)]
    pub struct DecodedJson<'a> {
        decoded: &'a Decoded,
        ids: IdsAs,
    }

    impl Decoded {
        /// This ID as JSON, its 64-bit integers written as `ids` says (see [`crate::json`]).
        ///
        /// ```
        /// use idmint_core::{formats::decode, json::IdsAs};
        /// let d = decode("18446744073709551615", None)?;
        /// assert_eq!(
        ///     serde_json::to_string(&d.json(IdsAs::Number)).unwrap(),
        ///     r#"{"format":"integer","id":"18446744073709551615","value":18446744073709551615,"time_ms":null,"time":null,"layout":null,"parts":{"bits":64,"as_signed":"-1"}}"#
        /// );
        /// # Ok::<(), idmint_core::Error>(())
        /// ```
        pub fn json(&self, ids: IdsAs) -> DecodedJson<'_> {
            DecodedJson { decoded: self, ids }
        }
    }

    /// A whole number, as a JSON number or a decimal string.
    struct Int {
        value: u64,
        quoted: bool,
    }

    impl Serialize for Int {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            if self.quoted {
                s.collect_str(&self.value)
            } else {
                s.serialize_u64(self.value)
            }
        }
    }

    /// The parts as one object, in the order of the ID's bits.
    struct Parts<'a>(&'a [(String, PartValue)], IdsAs);

    impl Serialize for Parts<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut map = s.serialize_map(Some(self.0.len()))?;
            for (name, value) in self.0 {
                match value {
                    PartValue::Int(v) => map.serialize_entry(
                        name,
                        &Int {
                            value: *v,
                            quoted: self.1.quotes_part(*v),
                        },
                    )?,
                    PartValue::Text(t) => map.serialize_entry(name, t)?,
                }
            }
            map.end()
        }
    }

    impl Serialize for DecodedJson<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let d = self.decoded;
            let mut o = s.serialize_struct("Decoded", 7)?;
            o.serialize_field("format", d.format.name())?;
            o.serialize_field("id", &d.id)?;
            let value = d.value.map(|value| Int {
                value,
                quoted: self.ids.quotes_ids(),
            });
            o.serialize_field("value", &value)?;
            o.serialize_field("time_ms", &d.time_ms)?;
            o.serialize_field("time", &d.time)?;
            o.serialize_field("layout", &d.layout)?;
            o.serialize_field("parts", &Parts(&d.parts, self.ids))?;
            o.end()
        }
    }

    impl Serialize for Decoded {
        /// The shape of [`crate::json`] with [`IdsAs::String`], the default of every writer.
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            self.json(IdsAs::String).serialize(s)
        }
    }
}

#[cfg(feature = "openapi")]
mod schema {
    use std::borrow::Cow;

    use utoipa::openapi::schema::{
        AdditionalProperties, ObjectBuilder, OneOfBuilder, Schema, SchemaType, Type,
    };
    use utoipa::openapi::RefOr;

    use crate::formats::{Decoded, Format};

    fn typed(types: &[Type]) -> ObjectBuilder {
        ObjectBuilder::new().schema_type(SchemaType::Array(types.to_vec()))
    }

    impl utoipa::PartialSchema for Decoded {
        /// The shape [`crate::json`] describes, for `idmint serve`'s OpenAPI document.
        fn schema() -> RefOr<Schema> {
            let value = OneOfBuilder::new()
                .item(
                    ObjectBuilder::new()
                        .schema_type(Type::String)
                        .pattern(Some("^[0-9]{1,20}$"))
                        .description(Some("In decimal (the default, `ids=string`)")),
                )
                .item(
                    ObjectBuilder::new()
                        .schema_type(Type::Integer)
                        .minimum(Some(0))
                        .description(Some(
                            "As a JSON number (`ids=number`); a JavaScript reader rounds it above 2^53",
                        )),
                )
                .item(ObjectBuilder::new().schema_type(Type::Null))
                .description(Some(
                    "The ID as a 64-bit integer (snowflake, integer, tsid), else null",
                ));
            let part = OneOfBuilder::new()
                .item(
                    ObjectBuilder::new()
                        .schema_type(Type::Integer)
                        .minimum(Some(0))
                        .description(Some("A whole number (as a decimal string above 2^53 - 1 unless `ids=number`)")),
                )
                .item(ObjectBuilder::new().schema_type(Type::String).description(Some(
                    "Text: hex bytes, a name, or a whole number above 2^53 - 1 in decimal",
                )));
            ObjectBuilder::new()
                .description(Some(
                    "An ID taken apart: the same keys for every format, null where it has none",
                ))
                .property(
                    "format",
                    ObjectBuilder::new()
                        .schema_type(Type::String)
                        .enum_values(Some(Format::ALL.map(Format::name)))
                        .description(Some("The format recognised")),
                )
                .property(
                    "id",
                    ObjectBuilder::new()
                        .schema_type(Type::String)
                        .description(Some("The ID in its canonical text")),
                )
                .property("value", value)
                .property(
                    "time_ms",
                    typed(&[Type::Integer, Type::Null]).description(Some(
                        "Unix milliseconds of the ID's time, floored (negative before 1970), or null",
                    )),
                )
                .property(
                    "time",
                    typed(&[Type::String, Type::Null]).description(Some(
                        "That time as RFC 3339 UTC at the format's precision; null without one or past 9999",
                    )),
                )
                .property(
                    "layout",
                    typed(&[Type::String, Type::Null]).description(Some(
                        "The layout a snowflake was read with: a preset name or a spec; else null",
                    )),
                )
                .property(
                    "parts",
                    ObjectBuilder::new()
                        .schema_type(Type::Object)
                        .additional_properties(Some(AdditionalProperties::RefOr(
                            RefOr::T(Schema::OneOf(part.build())),
                        )))
                        .description(Some("The named parts, in the order of the ID's bits")),
                )
                .required("format")
                .required("id")
                .required("value")
                .required("time_ms")
                .required("time")
                .required("layout")
                .required("parts")
                .into()
        }
    }

    impl utoipa::ToSchema for Decoded {
        fn name() -> Cow<'static, str> {
            Cow::Borrowed("Decoded")
        }
    }
}
