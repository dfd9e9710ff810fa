//! NumPy's legacy `RandomState`, bit-exact.
