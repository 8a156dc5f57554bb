use crate::segment::Tag;

pub struct Lease(pub Tag);
