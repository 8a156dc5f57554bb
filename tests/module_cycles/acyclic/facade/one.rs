pub struct One;
