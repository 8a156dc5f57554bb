//! A one-owner cursor over a tag: blocks of IDs taken from the tag's buffered ranges in one
//! atomic step, handed out with a plain increment.
//!
//! `TagHandle::next_id` pays one locked `fetch_add` per ID on a word every thread shares, which
//! caps one thread at the machine's `fetch_add` rate. A cursor pays that once per block; between
//! blocks each ID costs a load of the client's live word (so a closed client or a forked child
//! still refuses) and an increment of the cursor's own counter.

use super::handles::TagHandle;
use crate::{Error, Result};

/// One owner's cursor over a tag, made by [`TagHandle::cursor`]: takes `block` contiguous IDs
/// at a time from the tag's buffered ranges and hands them out one by one without touching
/// shared memory. IDs rise along one cursor; across cursors (threads) they are unique but not
/// in call order. IDs a cursor holds when it is dropped are never handed out (a gap, as the
/// skipped end of a range is).
///
/// ```
/// use idmint_core::segment::{MemoryStore, SegmentClient};
/// let h = SegmentClient::builder().store(MemoryStore::new()).connect_blocking()?.tag("t")?;
/// let mut c = h.cursor(64)?;
/// assert_eq!(c.next_id()?, 1);
/// assert_eq!(c.remaining(), 63);
/// assert_eq!(h.next_id()?, 65); // the handle takes IDs after the cursor's block
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Debug)]
pub struct TagCursor {
    handle: TagHandle,
    next: u64,
    end: u64,
    block: u64,
}

impl TagHandle {
    /// A cursor taking `block` IDs at a time (1..=the tag's step), for a thread that draws
    /// many IDs from this tag: one atomic step per block instead of one per ID.
    ///
    /// ```
    /// use idmint_core::segment::{MemoryStore, SegmentClient};
    /// let h = SegmentClient::builder().store(MemoryStore::new()).connect_blocking()?.tag("t")?;
    /// let err = h.cursor(5000).unwrap_err(); // above the step of 1000
    /// assert_eq!(err.to_string(), "invalid argument `block` = 5000: 1..=1000");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn cursor(&self, block: u64) -> Result<TagCursor> {
        self.shared.live()?;
        // Blocks come from the buffered ranges, so one may not exceed the range a refill brings.
        let step = self.st.base_step();
        if !(1..=step).contains(&block) {
            return Err(Error::InvalidArgument {
                name: "block".into(),
                value: block.to_string(),
                expected: format!("1..={step}"),
            });
        }
        Ok(TagCursor {
            handle: self.clone(),
            next: 0,
            end: 0,
            block,
        })
    }
}

impl TagCursor {
    /// The next ID: from the cursor's block, or, once it is used up, from a new block taken as
    /// [`TagHandle::next_ids`] takes one (waiting on the store only when the tag's buffered
    /// ranges are both used up). A closed client or a forked child refuses, even with IDs
    /// left in the block.
    ///
    /// ```
    /// use idmint_core::segment::{MemoryStore, SegmentClient};
    /// let client = SegmentClient::builder().store(MemoryStore::new()).connect_blocking()?;
    /// let mut c = client.tag("t")?.cursor(10)?;
    /// let ids: Vec<u64> = (0..25).map(|_| c.next_id()).collect::<Result<_, _>>()?;
    /// assert_eq!(ids, (1..=25).collect::<Vec<_>>());
    /// client.close();
    /// assert_eq!(c.next_id().unwrap_err().kind(), "closed");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    #[inline]
    pub fn next_id(&mut self) -> Result<u64> {
        self.handle.shared.live()?;
        if self.next < self.end {
            let id = self.next;
            self.next += 1;
            return Ok(id);
        }
        self.next_block()
    }

    #[cold]
    fn next_block(&mut self) -> Result<u64> {
        let r = self.handle.next_ids(self.block)?;
        self.next = r.start + 1;
        self.end = r.end;
        Ok(r.start)
    }

    /// IDs left in the current block.
    ///
    /// ```
    /// use idmint_core::segment::{MemoryStore, SegmentClient};
    /// let h = SegmentClient::builder().store(MemoryStore::new()).connect_blocking()?.tag("t")?;
    /// let mut c = h.cursor(8)?;
    /// assert_eq!(c.remaining(), 0); // nothing taken before the first call
    /// c.next_id()?;
    /// assert_eq!(c.remaining(), 7);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn remaining(&self) -> u64 {
        self.end - self.next
    }

    /// The handle this cursor draws from.
    ///
    /// ```
    /// use idmint_core::segment::{MemoryStore, SegmentClient};
    /// let h = SegmentClient::builder().store(MemoryStore::new()).connect_blocking()?.tag("t")?;
    /// assert_eq!(h.cursor(8)?.handle().tag(), "t");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn handle(&self) -> &TagHandle {
        &self.handle
    }
}
