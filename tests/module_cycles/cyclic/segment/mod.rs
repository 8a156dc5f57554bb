mod tag;

pub use tag::Tag;

pub struct Options;
