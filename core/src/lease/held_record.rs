//! The held-value record of the key-value lease stores (etcd, ZooKeeper).

/// What `B/held/V` holds in the etcd and ZooKeeper lease stores: one text format, so both
/// read and write it the same way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Record {
    pub(super) token: String,
    pub(super) ttl_ms: u64,
    pub(super) freeze_ms: u64,
    pub(super) renewed_ms: u64,
    pub(super) holder: String,
}

impl Record {
    pub(super) fn encode(&self) -> String {
        format!(
            "1 {} {} {} {} {}",
            self.token, self.ttl_ms, self.freeze_ms, self.renewed_ms, self.holder
        )
    }

    pub(super) fn decode(bytes: &[u8]) -> Option<Record> {
        let text = std::str::from_utf8(bytes).ok()?;
        let mut parts = text.splitn(6, ' ');
        if parts.next()? != "1" {
            return None;
        }
        Some(Record {
            token: parts.next()?.to_string(),
            ttl_ms: parts.next()?.parse().ok()?,
            freeze_ms: parts.next()?.parse().ok()?,
            renewed_ms: parts.next()?.parse().ok()?,
            holder: parts.next()?.to_string(),
        })
    }
}
