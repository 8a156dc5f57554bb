//! What the stores that keep a tag as one versioned value share (etcd: a key and its mod
//! revision; ZooKeeper: a node and its version): the row's format and the read-change-swap loop
//! every change of a tag runs. Each store only reads a row with its version and swaps it on that
//! version ([`VersionedRows`]); the rules of allocating, giving back and updating are here once.

use super::store::{exhausted, give_back_to, IdRange, TagInfo, TagRow};
use super::tag::{check_count, TagUpdate};
use crate::store::{validate_tag, StoreFuture};
use crate::{Error, Result};

/// How many times one call reads again after losing a compare-and-swap before it reports the
/// store as too busy: each loss means another client advanced the tag, so this many in a row
/// takes more clients than a tag ever has.
const TRIES: usize = 1000;

/// A tag's value: `MAX_ID STEP DESCRIPTION` (the description last, so it may hold spaces).
impl TagRow {
    pub(super) fn encode(&self) -> String {
        format!("{} {} {}", self.max_id, self.step, self.description)
    }

    pub(super) fn decode(bytes: &[u8]) -> Option<TagRow> {
        let mut parts = std::str::from_utf8(bytes).ok()?.splitn(3, ' ');
        Some(TagRow {
            max_id: parts.next()?.parse().ok()?,
            step: parts.next()?.parse().ok()?,
            description: parts.next()?.to_string(),
        })
    }
}

/// A store that keeps each tag as one [`TagRow`] with a version, and writes a row only if its
/// version is still the one read.
pub(super) trait VersionedRows: Sync {
    /// What a read saw and a swap compares (an etcd `KeyValue`, a ZooKeeper `Stat`).
    type Version: Send + Sync;

    /// The store's description, for errors.
    fn store(&self) -> String;

    /// The tag's row and its version, or `None` when there is no such tag.
    fn read<'a>(
        &'a self,
        tag: &'a str,
        what: &'a str,
    ) -> StoreFuture<'a, Option<(Self::Version, TagRow)>>;

    /// Writes `row` if the tag is still at `read`. False: another client got there first.
    fn swap<'a>(
        &'a self,
        tag: &'a str,
        read: &'a Self::Version,
        row: &'a TagRow,
        what: &'a str,
    ) -> StoreFuture<'a, bool>;
}

/// The [`SegmentStore`](super::SegmentStore) methods every [`VersionedRows`] store answers by
/// this module's rules, written once for etcd and ZooKeeper: `describe` (the store's
/// [`VersionedRows::store`]), `tag_info`, `allocate`, `give_back` and `update_tag`. Used inside
/// `impl SegmentStore for …`, next to the store's own `create_tag` and `list_tags`.
macro_rules! versioned_segment_methods {
    () => {
        fn describe(&self) -> String {
            super::cas::VersionedRows::store(self)
        }

        fn tag_info<'a>(
            &'a self,
            tag: &'a str,
        ) -> crate::store::StoreFuture<'a, Option<super::store::TagInfo>> {
            Box::pin(super::cas::tag_info(self, tag))
        }

        fn allocate<'a>(
            &'a self,
            tag: &'a str,
            count: u64,
        ) -> crate::store::StoreFuture<'a, super::store::IdRange> {
            Box::pin(super::cas::allocate(self, tag, count))
        }

        fn give_back<'a>(
            &'a self,
            tag: &'a str,
            range: super::store::IdRange,
            next: u64,
        ) -> crate::store::StoreFuture<'a, bool> {
            Box::pin(super::cas::give_back(self, tag, range, next))
        }

        fn update_tag<'a>(
            &'a self,
            tag: &'a str,
            update: &'a super::tag::TagUpdate,
        ) -> crate::store::StoreFuture<'a, super::store::TagInfo> {
            Box::pin(super::cas::update_tag(self, tag, update))
        }
    };
}
pub(super) use versioned_segment_methods;

/// What a change decided about the row it was shown.
enum Edit<T> {
    /// Swap the changed row in, then answer this.
    Write(T),
    /// Answer this without writing.
    Keep(T),
}

/// Reads the tag, lets `edit` change its row and swaps it in, again from the read while another
/// client wins the race. A missing tag answers `missing()`.
async fn change<S, T>(
    s: &S,
    tag: &str,
    what: &str,
    missing: impl Fn() -> Result<T>,
    mut edit: impl FnMut(&mut TagRow) -> Result<Edit<T>>,
) -> Result<T>
where
    S: VersionedRows + ?Sized,
{
    validate_tag(tag)?;
    for _ in 0..TRIES {
        let Some((version, mut row)) = s.read(tag, what).await? else {
            return missing();
        };
        match edit(&mut row)? {
            Edit::Keep(answer) => return Ok(answer),
            Edit::Write(answer) => {
                if s.swap(tag, &version, &row, what).await? {
                    return Ok(answer);
                }
            }
        }
    }
    Err(Error::StoreUnavailable {
        store: s.store(),
        reason: format!(
            "{what}: tag `{tag}` changed under each of {TRIES} compare-and-swaps in a row"
        ),
    })
}

fn unknown<T>(tag: &str) -> Result<T> {
    Err(Error::UnknownTag {
        tag: tag.to_string(),
    })
}

/// [`SegmentStore::tag_info`](super::SegmentStore::tag_info).
pub(super) async fn tag_info<S: VersionedRows + ?Sized>(
    s: &S,
    tag: &str,
) -> Result<Option<TagInfo>> {
    validate_tag(tag)?;
    Ok(s.read(tag, "reading a tag")
        .await?
        .map(|(_, row)| row.info(tag)))
}

/// [`SegmentStore::allocate`](super::SegmentStore::allocate): the next `count` IDs.
pub(super) async fn allocate<S: VersionedRows + ?Sized>(
    s: &S,
    tag: &str,
    count: u64,
) -> Result<IdRange> {
    let limit = check_count(count)?;
    change(
        s,
        tag,
        "allocating",
        || unknown(tag),
        |row| {
            if row.max_id > limit {
                return Err(exhausted(tag, row.max_id, count));
            }
            row.max_id += count as i64;
            IdRange::from_new_max(row.max_id, count).map(Edit::Write)
        },
    )
    .await
}

/// [`SegmentStore::give_back`](super::SegmentStore::give_back): only while nobody allocated
/// after the range, i.e. its end is still the tag's max.
pub(super) async fn give_back<S: VersionedRows + ?Sized>(
    s: &S,
    tag: &str,
    range: IdRange,
    next: u64,
) -> Result<bool> {
    validate_tag(tag)?;
    let Some((end, back_to)) = give_back_to(range, next)? else {
        return Ok(false);
    };
    change(
        s,
        tag,
        "giving back a range",
        || Ok(false),
        |row| {
            if row.max_id != end {
                return Ok(Edit::Keep(false));
            }
            row.max_id = back_to;
            Ok(Edit::Write(true))
        },
    )
    .await
}

/// [`SegmentStore::update_tag`](super::SegmentStore::update_tag).
pub(super) async fn update_tag<S: VersionedRows + ?Sized>(
    s: &S,
    tag: &str,
    update: &TagUpdate,
) -> Result<TagInfo> {
    change(
        s,
        tag,
        "updating a tag",
        || unknown(tag),
        |row| {
            row.apply(update);
            Ok(Edit::Write(row.info(tag)))
        },
    )
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// A row in memory that loses the first `losses` swaps, as if other clients won them.
    struct Flaky {
        row: Mutex<(u64, Option<String>)>,
        losses: Mutex<usize>,
    }

    impl VersionedRows for Flaky {
        type Version = u64;
        fn store(&self) -> String {
            "flaky".into()
        }
        fn read<'a>(&'a self, _: &'a str, _: &'a str) -> StoreFuture<'a, Option<(u64, TagRow)>> {
            Box::pin(async move {
                let (v, ref text) = *self.row.lock().unwrap();
                Ok(text
                    .as_deref()
                    .map(|t| (v, TagRow::decode(t.as_bytes()).unwrap())))
            })
        }
        fn swap<'a>(
            &'a self,
            _: &'a str,
            read: &'a u64,
            row: &'a TagRow,
            _: &'a str,
        ) -> StoreFuture<'a, bool> {
            Box::pin(async move {
                let mut losses = self.losses.lock().unwrap();
                let mut cur = self.row.lock().unwrap();
                if *losses > 0 {
                    *losses -= 1;
                    cur.0 += 1;
                    // The winner advanced the tag by 10.
                    let mut won = TagRow::decode(cur.1.as_ref().unwrap().as_bytes()).unwrap();
                    won.max_id += 10;
                    cur.1 = Some(won.encode());
                    return Ok(false);
                }
                if cur.0 != *read {
                    return Ok(false);
                }
                *cur = (cur.0 + 1, Some(row.encode()));
                Ok(true)
            })
        }
    }

    fn flaky(text: Option<&str>, losses: usize) -> Flaky {
        Flaky {
            row: Mutex::new((1, text.map(str::to_string))),
            losses: Mutex::new(losses),
        }
    }

    fn run<T>(f: impl std::future::Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(f)
    }

    #[test]
    fn a_lost_swap_reads_again_and_allocates_above_the_winner() {
        let s = flaky(Some("100 1000 my tag"), 3);
        let r = run(allocate(&s, "t", 5)).unwrap();
        // Three winners took 10 each: 100 + 30, then ours.
        assert_eq!((r.start, r.len()), (131, 5));
        assert_eq!(s.row.lock().unwrap().1.as_deref(), Some("135 1000 my tag"));
    }

    #[test]
    fn every_swap_lost_is_store_unavailable() {
        let s = flaky(Some("0 1 d"), TRIES);
        let err = run(allocate(&s, "t", 1)).unwrap_err();
        assert_eq!(err.kind(), "store_unavailable", "{err}");
        assert!(err.to_string().contains("1000 compare-and-swaps"), "{err}");
    }

    #[test]
    fn a_missing_tag_is_unknown_for_allocate_and_update_and_false_for_give_back() {
        let s = flaky(None, 0);
        assert_eq!(run(allocate(&s, "t", 1)).unwrap_err().kind(), "unknown_tag");
        let update = TagUpdate::default().step(7).unwrap();
        assert_eq!(
            run(update_tag(&s, "t", &update)).unwrap_err().kind(),
            "unknown_tag"
        );
        let range = IdRange::from_new_max(10, 10).unwrap();
        assert!(!run(give_back(&s, "t", range, 5)).unwrap());
    }

    #[test]
    fn give_back_only_while_the_range_ends_at_the_tags_max() {
        let s = flaky(Some("20 10 d"), 0);
        let range = IdRange::from_new_max(20, 10).unwrap();
        assert!(run(give_back(&s, "t", range, 15)).unwrap());
        assert_eq!(s.row.lock().unwrap().1.as_deref(), Some("14 10 d"));
        // Now the tag's max (14) is not the range's end: nothing given back twice.
        assert!(!run(give_back(&s, "t", range, 15)).unwrap());
    }
}
