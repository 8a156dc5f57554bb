mod lease;
mod segment;
mod store;
