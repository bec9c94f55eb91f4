//! Still outputs beyond SVG and PNG, and the row height: `-o x.jpg` and `-o x.webp` decode
//! (image-rs) to the PNG's size and colours; `--line-height` 1–2 keeps box drawing and block
//! elements tiling with no gaps, in the SVG (rasterised by resvg) and in our own PNG.

mod common;

use common::{capture_script, distance, pixel, raster, rgb, PAD};

const DEFAULT_BG: &str = "#1e1e1e";

/// A PNG's size and straight RGBA pixels.
fn decode_png(bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    let rgba = match info.color_type {
        png::ColorType::Rgba => buf,
        png::ColorType::Rgb => buf
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        other => panic!("unexpected PNG colour type {other:?}"),
    };
    (info.width, info.height, rgba)
}

fn at(rgba: &[u8], width: u32, x: u32, y: u32) -> [u8; 4] {
    let i = ((y * width + x) * 4) as usize;
    [rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3]]
}

#[test]
fn jpg_and_webp_decode_to_the_png_size_and_colours() {
    let line = r"printf '\e[41m    \e[42m    \e[44m    \e[0m\n'";
    let case = capture_script(line, &["-w", "12", "-h", "2", "--no-cursor"]);
    let dir = case.dir.path();
    for out in ["a.png", "a.jpg", "a.jpeg", "a.webp"] {
        common::console2svg()
            .current_dir(dir)
            .args(["capture", "-w", "12", "-h", "2", "--no-cursor", "-o", out])
            .args(["--", "bash", "case.sh"])
            .assert()
            .success();
    }
    let (w, h, png) = decode_png(&std::fs::read(dir.join("a.png")).unwrap());
    // The centre of column 1, 5 and 9 of row 0: red, green, blue backgrounds.
    let centre = |col: u32| {
        (
            (PAD + (col as f32 + 0.5) * common::CELL_W) as u32,
            (PAD + common::CELL_H / 2.0) as u32,
        )
    };
    let want = [(1, "#cd3131"), (5, "#0dbc79"), (9, "#2472c8")];
    for (col, colour) in want {
        let (x, y) = centre(col);
        assert!(
            distance(at(&png, w, x, y), rgb(colour)) <= 1,
            "png col {col}"
        );
    }

    let jpg = std::fs::read(dir.join("a.jpg")).unwrap();
    assert_eq!(image::guess_format(&jpg).unwrap(), image::ImageFormat::Jpeg);
    assert_eq!(
        std::fs::read(dir.join("a.jpeg")).unwrap(),
        jpg,
        ".jpeg is .jpg"
    );
    let img = image::load_from_memory(&jpg).unwrap().to_rgba8();
    assert_eq!(img.dimensions(), (w, h), "the PNG's size");
    for (col, colour) in want {
        let (x, y) = centre(col);
        let p = img.get_pixel(x, y).0;
        assert!(
            distance(p, rgb(colour)) <= 10,
            "jpg col {col}: {p:?} vs {colour}"
        );
    }

    let webp = std::fs::read(dir.join("a.webp")).unwrap();
    assert_eq!(
        image::guess_format(&webp).unwrap(),
        image::ImageFormat::WebP
    );
    let img = image::load_from_memory(&webp).unwrap().to_rgba8();
    assert_eq!(img.dimensions(), (w, h));
    assert!(img.as_raw() == &png, "lossless WebP: the PNG's very pixels");

    // --format picks them too, and --scale applies.
    common::console2svg()
        .current_dir(dir)
        .args([
            "capture", "-w", "12", "-h", "2", "--format", "webp", "--scale", "2",
        ])
        .args(["-o", "scaled.img", "--", "bash", "case.sh"])
        .assert()
        .success();
    let img = image::load_from_memory(&std::fs::read(dir.join("scaled.img")).unwrap()).unwrap();
    assert_eq!((img.width(), img.height()), (2 * w, 2 * h));
}

/// Box drawing and a column of full blocks, captured at `line_height`: the SVG, our PNG, and
/// the row height in px.
fn boxes_at(line_height: &str) -> (String, (u32, u32, Vec<u8>), f32) {
    let line = r"printf '┌──┬──┐\n│██│▀▄│\n├──┼──┤\n└──┴──┘\n█\n█\n█\n'";
    let case = capture_script(
        line,
        &[
            "--no-cursor",
            "-h",
            "8",
            "-w",
            "10",
            "--line-height",
            line_height,
        ],
    );
    common::console2svg()
        .current_dir(case.dir.path())
        .args([
            "capture",
            "--no-cursor",
            "-h",
            "8",
            "-w",
            "10",
            "--line-height",
        ])
        .args([line_height, "-o", "out.png", "--", "bash", "case.sh"])
        .assert()
        .success();
    let png = decode_png(&std::fs::read(case.dir.path().join("out.png")).unwrap());
    let doc = roxmltree::Document::parse(&case.svg).unwrap();
    let height: f32 = doc
        .root_element()
        .attribute("height")
        .unwrap()
        .parse()
        .unwrap();
    let row = (height - 2.0 * PAD) / 8.0;
    (case.svg, png, row)
}

#[test]
fn line_height_keeps_box_drawing_and_blocks_tiling() {
    let (_, _, natural) = boxes_at("1");
    assert_eq!(natural, common::CELL_H, "1 is the font's own height");
    for lh in ["1", "1.37", "2"] {
        let (svg, (pw, ph, png), ch) = boxes_at(lh);
        let factor: f32 = lh.parse().unwrap();
        assert!(
            (ch - (18.48 * factor).round()).abs() <= 1.0,
            "{lh}: rows of {ch} px"
        );
        assert!(
            common::glyphs(&svg).is_empty(),
            "{lh}: all geometry, no font glyphs"
        );
        let cw = common::CELL_W;
        let cx = |c: usize| PAD + c as f32 * cw + cw / 2.0;
        let cy = |r: usize| PAD + r as f32 * ch + ch / 2.0;
        let bg = rgb(DEFAULT_BG);
        for zoom in [1.0f32, 3.0] {
            let p = raster(&svg, zoom);
            let z = zoom as u32;
            // The strongest pixel within ±1 px of the line's centre: never background.
            let ink = |xs: std::ops::RangeInclusive<u32>, ys: std::ops::RangeInclusive<u32>| {
                xs.flat_map(|x| ys.clone().map(move |y| (x, y)))
                    .map(|(x, y)| distance(pixel(&p, x, y), bg))
                    .max()
                    .unwrap()
            };
            let s = |v: f32| (v * zoom).floor() as u32;
            for c in [0, 3, 6] {
                for y in s(cy(0))..=s(cy(3)) {
                    assert!(
                        ink(s(cx(c)) - z..=s(cx(c)) + z, y..=y) > 80,
                        "{lh} zoom {zoom}: gap in the vertical line at col {c}, y={y}"
                    );
                }
            }
            for r in [0, 2, 3] {
                for x in s(cx(0))..=s(cx(6)) {
                    assert!(
                        ink(x..=x, s(cy(r)) - z..=s(cy(r)) + z) > 80,
                        "{lh} zoom {zoom}: gap in the horizontal line at row {r}, x={x}"
                    );
                }
            }
            // The column of █ (rows 4–6) is solid from its top to its bottom.
            let x = s(cx(0));
            for y in (PAD + 4.0 * ch) as u32 * z + 1..(PAD + 7.0 * ch) as u32 * z - 1 {
                assert!(
                    distance(pixel(&p, x, y), rgb("#d4d4d4")) <= 2,
                    "{lh} zoom {zoom}: the █ column has a gap at y={y}: {:?}",
                    pixel(&p, x, y)
                );
            }
        }
        // Our own PNG: the same column of █, no gap row.
        assert_eq!(pw, (2.0 * PAD + 10.0 * cw).ceil() as u32);
        assert_eq!(ph, (2.0 * PAD + 8.0 * ch).ceil() as u32);
        let x = cx(0) as u32;
        for y in (PAD + 4.0 * ch) as u32 + 1..(PAD + 7.0 * ch) as u32 - 1 {
            assert!(
                distance(at(&png, pw, x, y), rgb("#d4d4d4")) <= 2,
                "{lh}: our PNG's █ column has a gap at y={y}: {:?}",
                at(&png, pw, x, y)
            );
        }
        // The half blocks split the taller cell at half its height.
        let (x, top, bottom) = (
            cx(4) as u32,
            (PAD + ch) as u32 + 1,
            (PAD + 2.0 * ch) as u32 - 1,
        );
        let half = PAD + ch + ch / 2.0;
        assert!(
            distance(at(&png, pw, x, top), rgb("#d4d4d4")) <= 2,
            "{lh}: ▀ top"
        );
        assert!(
            distance(at(&png, pw, x, half as u32 + 1), bg) <= 2,
            "{lh}: ▀ bottom"
        );
        assert!(
            distance(at(&png, pw, cx(5) as u32, bottom), rgb("#d4d4d4")) <= 2,
            "{lh}: ▄"
        );
    }
}

#[test]
fn line_height_out_of_range_is_one_line_naming_it() {
    let dir = common::tempdir();
    for bad in ["0.9", "2.01", "-1", "abc", "NaN"] {
        let out = common::console2svg()
            .current_dir(dir.path())
            .args(["capture", "--line-height", bad, "-o", "x.svg", "--", "true"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains("--line-height") && err.contains("from 1 to 2"),
            "{err}"
        );
    }
    // In a config file too.
    std::fs::write(
        dir.path().join("c.yaml"),
        "$version: 1\noptions: {appearance: {line-height: 3}}\n",
    )
    .unwrap();
    let out = common::console2svg()
        .current_dir(dir.path())
        .args(["-C", "c.yaml", "capture", "-o", "x.svg", "--", "true"])
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("line-height"));
    assert!(!dir.path().join("x.svg").exists(), "nothing written");
}
