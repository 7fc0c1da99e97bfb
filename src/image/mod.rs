//! Pure raster images: an anti-aliased RGB canvas, a bitmap font of our own, and a PNG encoder
//! with its own deflate (and `inflate`, its reverse, for the page compiled in deflated). Knows
//! nothing of health data; `domain::chart` draws charts with it.

pub mod canvas;
pub mod deflate;
pub mod font;
pub mod inflate;
pub mod png;
