//! What a link's failure is: the one rule the HTTP, etcd and ZooKeeper links share (a leaf
//! module, so that the links and the store layer's `mod.rs`, which re-exports them, use each other
//! in no circle).

use crate::Error;

/// A store's failure, as every link reports one: `not_authorized` when the store refused the
/// credentials (`status` 401: none or unknown, 403: not allowed), which no client retries in a
/// loop since only a change of credentials or ACL helps, else `store_unavailable`, which
/// clients retry with backoff. The HTTP, etcd and ZooKeeper links each map their own refusals to
/// a status; the rule of what follows from it is this one.
pub(crate) fn of(store: &str, refused: Option<u64>, reason: String) -> Error {
    let store = store.to_string();
    match refused {
        Some(status) => Error::NotAuthorized {
            store,
            status,
            reason,
        },
        None => Error::StoreUnavailable { store, reason },
    }
}
