//! Existing tables, in place: the column names of a table another allocator already uses
//! (Meituan Leaf's `leaf_alloc`, a `sequence_value(name, id)` table), and what its `max_id`
//! means, so idmint clients and the running allocator can draw from the same rows at once.
//!
//! Two allocators sharing a row stay apart only if both move the counter up atomically and
//! both read the same range out of the new value. Leaf's `max_id` is the *next* ID to hand out:
//! after `UPDATE leaf_alloc SET max_id = max_id + step` it serves `max_id - step ..
//! max_id - 1` (`SegmentIDGenImpl.updateSegmentFromDb`). The seeds' compare-and-set tables
//! keep the *last* ID handed out: after `UPDATE … SET id = v + n WHERE id = v` they serve
//! `v + 1 ..= v + n`, which is also what idmint's own table means. Reading one kind of row
//! with the other meaning would hand out one ID twice at every range boundary.

use super::names::validate_table;
use crate::{Error, Result};

/// What a mapped table's `max_id` column holds.
///
/// ```
/// use idmint_core::segment::MaxIdMeaning;
/// assert_eq!(MaxIdMeaning::parse("next")?, MaxIdMeaning::NextFree);
/// assert!(MaxIdMeaning::parse("first").is_err());
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaxIdMeaning {
    /// The last ID handed out (idmint's own table, the seeds' `sequence_value` and
    /// `t_id_provider`): moving it from `v` to `v + n` hands out `v + 1 ..= v + n`.
    LastIssued,
    /// The next ID to hand out (Leaf's `leaf_alloc`): moving it from `v` to `v + n` hands out
    /// `v ..= v + n - 1`.
    NextFree,
}

impl MaxIdMeaning {
    /// `last` or `next`, as the URL option `max_id_is` takes it.
    ///
    /// ```
    /// use idmint_core::segment::MaxIdMeaning;
    /// assert_eq!(MaxIdMeaning::parse("last")?, MaxIdMeaning::LastIssued);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn parse(s: &str) -> Result<MaxIdMeaning> {
        match s {
            "last" => Ok(MaxIdMeaning::LastIssued),
            "next" => Ok(MaxIdMeaning::NextFree),
            _ => Err(Error::InvalidArgument {
                name: "max_id_is".into(),
                value: s.escape_default().to_string(),
                expected:
                    "`last` (max_id is the last ID handed out) or `next` (the next one, as in Leaf)"
                        .into(),
            }),
        }
    }
}

/// A table another allocator already uses, and which of its columns hold what. idmint never
/// creates or alters such a table; [`SqlStore`](crate::segment::SqlStore) checks at connect
/// that the table and every mapped column exist.
///
/// ```
/// use idmint_core::segment::{MaxIdMeaning, StoreOptions, TableMapping};
/// // seed 004's `sequence_value(id, name)`: compare-and-set on `id`, the last ID handed out.
/// let seq = TableMapping::new("sequence_value", "name", "id")?;
/// let opts = StoreOptions::default().map_table(seq);
/// assert_eq!(TableMapping::leaf().max_id_is(), MaxIdMeaning::NextFree);
/// # let _ = opts;
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableMapping {
    pub(crate) table: String,
    pub(crate) tag_column: String,
    pub(crate) max_id_column: String,
    pub(crate) step_column: Option<String>,
    pub(crate) description_column: Option<String>,
    pub(crate) updated_column: Option<String>,
    pub(crate) max_id_is: MaxIdMeaning,
}

impl TableMapping {
    /// Meituan Leaf's table: `leaf_alloc(biz_tag, max_id, step, description, update_time)`,
    /// `max_id` the next ID to hand out (URL: `schema=leaf`).
    ///
    /// ```
    /// let leaf = idmint_core::segment::TableMapping::leaf();
    /// assert_eq!(leaf.table_name(), "leaf_alloc");
    /// ```
    pub fn leaf() -> TableMapping {
        TableMapping {
            table: "leaf_alloc".into(),
            tag_column: "biz_tag".into(),
            max_id_column: "max_id".into(),
            step_column: Some("step".into()),
            description_column: Some("description".into()),
            updated_column: Some("update_time".into()),
            max_id_is: MaxIdMeaning::NextFree,
        }
    }

    /// A table with a tag column and a counter column whose value is the last ID handed out
    /// (change that with [`max_id_meaning`](TableMapping::max_id_meaning)); no step,
    /// description or update-time column until one is named.
    ///
    /// ```
    /// use idmint_core::segment::TableMapping;
    /// assert!(TableMapping::new("sequence_value", "name", "id").is_ok());
    /// assert!(TableMapping::new("sequence_value", "name; --", "id").is_err());
    /// ```
    pub fn new(table: &str, tag_column: &str, max_id_column: &str) -> Result<TableMapping> {
        Ok(TableMapping {
            table: checked("table", table)?,
            tag_column: checked("tag_column", tag_column)?,
            max_id_column: checked("max_id_column", max_id_column)?,
            step_column: None,
            description_column: None,
            updated_column: None,
            max_id_is: MaxIdMeaning::LastIssued,
        })
    }

    /// Another table name, same columns (e.g. Leaf's columns in `leaf_alloc_v2`).
    ///
    /// ```
    /// let m = idmint_core::segment::TableMapping::leaf().table("ids_alloc")?;
    /// assert_eq!(m.table_name(), "ids_alloc");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn table(mut self, table: &str) -> Result<TableMapping> {
        self.table = checked("table", table)?;
        Ok(self)
    }

    /// The column holding tag names.
    ///
    /// ```
    /// assert!(idmint_core::segment::TableMapping::leaf().tag_column("name").is_ok());
    /// ```
    pub fn tag_column(mut self, column: &str) -> Result<TableMapping> {
        self.tag_column = checked("tag_column", column)?;
        Ok(self)
    }

    /// The counter column.
    ///
    /// ```
    /// assert!(idmint_core::segment::TableMapping::leaf().max_id_column("id").is_ok());
    /// ```
    pub fn max_id_column(mut self, column: &str) -> Result<TableMapping> {
        self.max_id_column = checked("max_id_column", column)?;
        Ok(self)
    }

    /// The column holding each tag's step, which clients use as their first range size
    /// (without one they use their own default step).
    ///
    /// ```
    /// use idmint_core::segment::TableMapping;
    /// assert!(TableMapping::new("seq", "name", "id")?.step_column("block").is_ok());
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn step_column(mut self, column: &str) -> Result<TableMapping> {
        self.step_column = Some(checked("step_column", column)?);
        Ok(self)
    }

    /// The column holding a tag's description (read, and written for rows idmint inserts).
    ///
    /// ```
    /// use idmint_core::segment::TableMapping;
    /// assert!(TableMapping::new("seq", "name", "id")?.description_column("note").is_ok());
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn description_column(mut self, column: &str) -> Result<TableMapping> {
        self.description_column = Some(checked("description_column", column)?);
        Ok(self)
    }

    /// A time column (`TIMESTAMP`, `DATETIME`) idmint sets to `CURRENT_TIMESTAMP` whenever it
    /// moves the counter.
    ///
    /// ```
    /// use idmint_core::segment::TableMapping;
    /// assert!(TableMapping::new("t_id_provider", "name", "max_id")?.updated_column("upd_time").is_ok());
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn updated_column(mut self, column: &str) -> Result<TableMapping> {
        self.updated_column = Some(checked("updated_column", column)?);
        Ok(self)
    }

    /// What the counter column means (see [`MaxIdMeaning`]).
    ///
    /// ```
    /// use idmint_core::segment::{MaxIdMeaning, TableMapping};
    /// let m = TableMapping::new("seq", "name", "next_id")?.max_id_meaning(MaxIdMeaning::NextFree);
    /// assert_eq!(m.max_id_is(), MaxIdMeaning::NextFree);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn max_id_meaning(mut self, meaning: MaxIdMeaning) -> TableMapping {
        self.max_id_is = meaning;
        self
    }

    /// The table's name.
    ///
    /// ```
    /// assert_eq!(idmint_core::segment::TableMapping::leaf().table_name(), "leaf_alloc");
    /// ```
    pub fn table_name(&self) -> &str {
        &self.table
    }

    /// What the counter column means.
    ///
    /// ```
    /// use idmint_core::segment::{MaxIdMeaning, TableMapping};
    /// assert_eq!(TableMapping::new("s", "name", "id")?.max_id_is(), MaxIdMeaning::LastIssued);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn max_id_is(&self) -> MaxIdMeaning {
        self.max_id_is
    }
}

/// A table or column name, held to the table-name grammar (it is formatted into SQL text);
/// errors name the option.
fn checked(option: &str, name: &str) -> Result<String> {
    validate_table(name).map_err(|e| Error::InvalidArgument {
        name: option.into(),
        value: name.escape_default().to_string(),
        expected: match e {
            Error::InvalidTag { reason, .. } => reason.replace("a table name", "a SQL name"),
            other => other.to_string(),
        },
    })?;
    Ok(name.to_string())
}

/// The mapping options of a store URL, gathered while its query is read and resolved once
/// every option is known (so their order does not matter).
#[derive(Debug, Default)]
pub(crate) struct MappingParams {
    pub(crate) schema: Option<String>,
    pub(crate) table: Option<String>,
    pub(crate) tag_column: Option<String>,
    pub(crate) max_id_column: Option<String>,
    pub(crate) step_column: Option<String>,
    pub(crate) description_column: Option<String>,
    pub(crate) updated_column: Option<String>,
    pub(crate) max_id_is: Option<String>,
}

impl MappingParams {
    /// Takes `key=value` if it is a mapping option (`table` is only noted: it also names
    /// idmint's own table).
    pub(crate) fn take(&mut self, key: &str, value: &str) -> bool {
        let slot = match key {
            "schema" => &mut self.schema,
            "tag_column" => &mut self.tag_column,
            "max_id_column" => &mut self.max_id_column,
            "step_column" => &mut self.step_column,
            "description_column" => &mut self.description_column,
            "updated_column" => &mut self.updated_column,
            "max_id_is" => &mut self.max_id_is,
            _ => return false,
        };
        *slot = Some(value.to_string());
        true
    }

    /// The mapping the options describe: `None` for idmint's own table (no mapping option
    /// given, or `schema=idmint`).
    pub(crate) fn resolve(self) -> Result<Option<TableMapping>> {
        let columns_given = self.tag_column.is_some()
            || self.max_id_column.is_some()
            || self.step_column.is_some()
            || self.description_column.is_some()
            || self.updated_column.is_some()
            || self.max_id_is.is_some();
        let mut m = match self.schema.as_deref() {
            Some("leaf") => TableMapping::leaf(),
            None | Some("idmint") if !columns_given => return Ok(None),
            None => {
                let missing = |option: &str, what: &str| {
                    Error::InvalidArgument {
                    name: option.into(),
                    value: "(missing)".into(),
                    expected: format!(
                        "{what}: a mapped table needs table=, tag_column= and max_id_column= (or schema=leaf)"
                    ),
                }
                };
                TableMapping::new(
                    self.table
                        .as_deref()
                        .ok_or_else(|| missing("table", "the existing table's name"))?,
                    self.tag_column
                        .as_deref()
                        .ok_or_else(|| missing("tag_column", "the column holding tag names"))?,
                    self.max_id_column
                        .as_deref()
                        .ok_or_else(|| missing("max_id_column", "the counter column"))?,
                )?
            }
            Some(other) => {
                return Err(Error::InvalidArgument {
                    name: "schema".into(),
                    value: other.escape_default().to_string(),
                    expected: if other == "idmint" {
                        "no column options with schema=idmint (idmint's own table has fixed columns); drop schema= to map a table"
                            .into()
                    } else {
                        "`idmint` (idmint's own table, the default) or `leaf` (Meituan Leaf's leaf_alloc)"
                            .into()
                    },
                })
            }
        };
        if let Some(t) = &self.table {
            m = m.table(t)?;
        }
        if let Some(c) = &self.tag_column {
            m = m.tag_column(c)?;
        }
        if let Some(c) = &self.max_id_column {
            m = m.max_id_column(c)?;
        }
        if let Some(c) = &self.step_column {
            m = m.step_column(c)?;
        }
        if let Some(c) = &self.description_column {
            m = m.description_column(c)?;
        }
        if let Some(c) = &self.updated_column {
            m = m.updated_column(c)?;
        }
        if let Some(s) = &self.max_id_is {
            m = m.max_id_meaning(MaxIdMeaning::parse(s)?);
        }
        Ok(Some(m))
    }
}
