//! Pure raster images: an anti-aliased RGB canvas, a bitmap font of our own, and a PNG encoder
//! with its own deflate. Knows nothing of health data; `domain::chart` draws charts with it.

pub mod canvas;
pub mod deflate;
pub mod font;
pub mod png;
