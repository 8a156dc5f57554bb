//! How a lease row travels as the `/v1` API's body ([`crate::wire::LeaseRow`], which is data
//! only): `idmint serve`'s `/v1/admin/leases` writes it, the `http(s)://` lease store
//! ([`HttpLeaseStore`](super::HttpLeaseStore)) reads it.

use super::store::LeaseInfo;
use crate::wire::LeaseRow;

impl From<LeaseInfo> for LeaseRow {
    fn from(i: LeaseInfo) -> Self {
        LeaseRow {
            state: i.state().to_string(),
            value: i.value,
            holder: i.holder,
            expires_in_ms: i.expires_in_ms,
            free_in_ms: i.free_in_ms.max(0),
            last_time_ms: i.last_time_ms,
        }
    }
}

impl LeaseRow {
    /// The row as a [`LeaseInfo`].
    ///
    /// ```
    /// let row = idmint_core::wire::LeaseRow { value: 3, state: "free".into(), holder: String::new(),
    ///     expires_in_ms: 0, free_in_ms: 0, last_time_ms: 7 };
    /// assert_eq!(row.info().last_time_ms, 7);
    /// ```
    pub fn info(&self) -> LeaseInfo {
        LeaseInfo {
            value: self.value,
            holder: self.holder.clone(),
            expires_in_ms: self.expires_in_ms,
            free_in_ms: self.free_in_ms,
            last_time_ms: self.last_time_ms,
        }
    }
}
