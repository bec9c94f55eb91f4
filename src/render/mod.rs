//! `Screen` + `Appearance` → SVG. Pure: no I/O, no clock, no environment; same input, same bytes.

pub mod chrome;
pub mod fonts;
pub mod geometry;
pub mod svg;
pub mod theme;
