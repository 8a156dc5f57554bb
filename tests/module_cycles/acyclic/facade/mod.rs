mod one;
mod two;

pub use one::One;
pub use two::Two;
