//! Links in docs name nothing: [`B`](crate::b::B), [`A`](super::a::A).
pub mod a;
pub mod b;
mod facade;

pub use facade::{One, Two};
