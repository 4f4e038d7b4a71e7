//! LOLWUT: models lolwut.c (`lolwutCommand()`, the canvas: `lwCreateCanvas()`, `lwDrawPixel()`,
//! `lwDrawLine()`, `lwDrawSquare()`, the Braille rendering), lolwut5.c (Georg Nees' Schotter)
//! and lolwut6.c (an 8-bit skyline), as redis-server 7.0.15 draws them: `LOLWUT` alone (and any
//! version but 5 and 6) answers `Redis ver. 7.0.15`, `LOLWUT VERSION 5 [cols [per-row
//! [per-col]]]` and `LOLWUT VERSION 6 [cols [rows]]` draw, with Redis's limits and C's `float`
//! arithmetic.
//!
//! Randomness: Redis draws from libc's `rand()`, seeded per process, so its drawings differ run
//! to run except where no random number reaches the picture — Schotter's first two rows of
//! squares, and a skyline one row tall. The playground draws from the engine's seeded RNG
//! (numbers in `0..=RAND_MAX` like glibc's), so it is exact where Redis is deterministic and
//! repeatable for a given seed elsewhere.

use crate::command::call::Call;
use crate::command::{is_opt, parse_i64};
use crate::engine::Engine;
use crate::reply::Reply;

/// glibc RAND_MAX.
const RAND_MAX: u32 = 2_147_483_647;

struct Canvas {
    width: i32,
    height: i32,
    pixels: Vec<u8>,
}

impl Canvas {
    fn new(width: i32, height: i32, bg: u8) -> Canvas {
        Canvas { width, height, pixels: vec![bg; (width.max(0) as usize) * (height.max(0) as usize)] }
    }
    fn draw_pixel(&mut self, x: i32, y: i32, color: u8) {
        if x < 0 || x >= self.width || y < 0 || y >= self.height {
            return;
        }
        self.pixels[(x + y * self.width) as usize] = color;
    }
    fn get_pixel(&self, x: i32, y: i32) -> u8 {
        if x < 0 || x >= self.width || y < 0 || y >= self.height {
            return 0;
        }
        self.pixels[(x + y * self.width) as usize]
    }
    /// Bresenham, as lwDrawLine().
    fn draw_line(&mut self, mut x1: i32, mut y1: i32, x2: i32, y2: i32, color: u8) {
        let dx = (x2 - x1).abs();
        let dy = (y2 - y1).abs();
        let sx = if x1 < x2 { 1 } else { -1 };
        let sy = if y1 < y2 { 1 } else { -1 };
        let mut err = dx - dy;
        loop {
            self.draw_pixel(x1, y1, color);
            if x1 == x2 && y1 == y2 {
                break;
            }
            let e2 = err * 2;
            if e2 > -dy {
                err -= dy;
                x1 += sx;
            }
            if e2 < dx {
                err += dx;
                y1 += sy;
            }
        }
    }
    /// lwDrawSquare(): a square of side `size` centred on x,y, rotated by `angle` (C floats).
    fn draw_square(&mut self, x: i32, y: i32, size: f32, angle: f32, color: u8) {
        // Redis's own (truncated) √2.
        #[allow(clippy::approx_constant)]
        let size = (size as f64 / 1.4142135623) as f32;
        let size = (size as f64).round() as f32;
        let mut k: f32 = (std::f64::consts::PI / 4.0 + angle as f64) as f32;
        let mut px = [0i32; 4];
        let mut py = [0i32; 4];
        for j in 0..4 {
            px[j] = ((k as f64).sin() * size as f64 + x as f64).round() as i32;
            py[j] = ((k as f64).cos() * size as f64 + y as f64).round() as i32;
            k = (k as f64 + std::f64::consts::PI / 2.0) as f32;
        }
        for j in 0..4 {
            self.draw_line(px[j], py[j], px[(j + 1) % 4], py[(j + 1) % 4], color);
        }
    }
}

/// lwTranslatePixelsGroup(): a 2×4 group of pixels as a Braille character.
fn braille(byte: u32, out: &mut Vec<u8>) {
    let code = 0x2800 + byte;
    out.push(0xE0 | (code >> 12) as u8);
    out.push(0x80 | ((code >> 6) & 0x3F) as u8);
    out.push(0x80 | (code & 0x3F) as u8);
}

/// The playground's allocation cap (`playground-max-alloc`): Redis would draw a 2000×400,000
/// canvas if asked; a browser tab should not.
fn check_alloc(e: &Engine, bytes: u64) -> Result<(), Reply> {
    let limit = e.config.int("playground-max-alloc") as u64;
    if bytes > limit {
        return Err(Reply::err(format!(
            "ERR playground limit: this would allocate {bytes} bytes; playground-max-alloc is {limit}"
        )));
    }
    Ok(())
}

fn rand(e: &mut Engine) -> u32 {
    (e.random_index(RAND_MAX as usize + 1)) as u32
}

/// `getLongFromObjectOrReply()` of an optional argument.
fn arg_or(c: &Call, i: usize, default: i64) -> Result<i64, Reply> {
    if c.argc() > i {
        parse_i64(c.arg(i))
    } else {
        Ok(default)
    }
}

/// lolwut.c `lolwutCommand()`: `VERSION <n>` picks the drawing (its number printed as
/// `%u.0.0`); the default is the unstable one.
pub fn lolwut(e: &mut Engine, c: &Call) -> Reply {
    let mut argv: Vec<Vec<u8>> = c.argv.to_vec();
    let mut version = "7.0.15".to_string();
    if c.argc() >= 3 && is_opt(c.arg(1), "version") {
        let v = match parse_i64(c.arg(2)) {
            Ok(v) => v,
            Err(r) => return r,
        };
        version = format!("{}.0.0", v as u32);
        argv.drain(1..3);
    }
    let v = version.as_bytes();
    let sub = Call { argv: &argv, ..*c };
    // `5.x` but 5.9 (and 4.9) draw Schotter, `6.x` but 6.9 (and 5.9) the skyline.
    let (major, dot, minor) = (v[0], v[1] == b'.', v[2]);
    if dot && ((major == b'5' && minor != b'9') || (major == b'4' && minor == b'9')) {
        lolwut5(e, &sub)
    } else if dot && ((major == b'6' && minor != b'9') || (major == b'5' && minor == b'9')) {
        lolwut6(e, &sub)
    } else {
        Reply::Verbatim(b"Redis ver. 7.0.15\n".to_vec())
    }
}

/// lolwut5.c `lolwut5Command()` and `lwDrawSchotter()`.
fn lolwut5(e: &mut Engine, c: &Call) -> Reply {
    let cols = match arg_or(c, 1, 66) {
        Ok(v) => v.clamp(1, 1000) as i32,
        Err(r) => return r,
    };
    let per_row = match arg_or(c, 2, 8) {
        Ok(v) => v.clamp(1, 200) as i32,
        Err(r) => return r,
    };
    let per_col = match arg_or(c, 3, 12) {
        Ok(v) => v.clamp(1, 200) as i32,
        Err(r) => return r,
    };
    let canvas_width = cols * 2;
    let padding = if canvas_width > 4 { 2 } else { 0 };
    let square_side: f32 = (canvas_width - padding * 2) as f32 / per_row as f32;
    let canvas_height = (square_side * per_col as f32 + (padding * 2) as f32) as i32;
    // The canvas, and its rendering: 3 bytes for each 2×4 pixels.
    let pixels = canvas_width as u64 * canvas_height.max(0) as u64;
    if let Err(r) = check_alloc(e, pixels + pixels / 8 * 3) {
        return r;
    }
    let mut canvas = Canvas::new(canvas_width, canvas_height, 0);
    for y in 0..per_col {
        for x in 0..per_row {
            let mut sx = (x as f32 * square_side + square_side / 2.0 + padding as f32) as i32;
            let mut sy = (y as f32 * square_side + square_side / 2.0 + padding as f32) as i32;
            let mut angle: f32 = 0.0;
            if y > 1 {
                let mut r = [0f32; 3];
                for v in r.iter_mut() {
                    *v = rand(e) as f32 / RAND_MAX as f32 / per_col as f32 * y as f32;
                }
                for v in r.iter_mut() {
                    if rand(e) % 2 == 1 {
                        *v = -*v;
                    }
                }
                angle = r[0];
                sx = (sx as f32 + r[1] * square_side / 3.0) as i32;
                sy = (sy as f32 + r[2] * square_side / 3.0) as i32;
            }
            canvas.draw_square(sx, sy, square_side, angle, 1);
        }
    }
    let mut text = Vec::new();
    let mut y = 0;
    while y < canvas.height {
        let mut x = 0;
        while x < canvas.width {
            let mut byte = 0u32;
            for (bit, (dx, dy)) in [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2), (0, 3), (1, 3)].iter().enumerate() {
                if canvas.get_pixel(x + dx, y + dy) != 0 {
                    byte |= 1 << bit;
                }
            }
            braille(byte, &mut text);
            x += 2;
        }
        if y != canvas.height - 1 {
            text.push(b'\n');
        }
        y += 4;
    }
    text.extend_from_slice(b"\nGeorg Nees - schotter, plotter on paper, 1968. Redis ver. 7.0.15\n");
    Reply::Verbatim(text)
}

/// lolwut6.c `lolwut6Command()` and `generateSkyline()`.
fn lolwut6(e: &mut Engine, c: &Call) -> Reply {
    let cols = match arg_or(c, 1, 80) {
        Ok(v) => v.clamp(1, 1000) as i32,
        Err(r) => return r,
    };
    let rows = match arg_or(c, 2, 20) {
        Ok(v) => v.clamp(1, 1000) as i32,
        Err(r) => return r,
    };
    // The canvas, and its rendering: up to 18 bytes a pixel.
    if let Err(r) = check_alloc(e, cols as u64 * rows as u64 * 19) {
        return r;
    }
    let mut canvas = Canvas::new(cols, rows, 3);
    generate_skyline(e, &mut canvas);
    let mut text = Vec::new();
    for y in 0..canvas.height {
        for x in 0..canvas.width {
            let ce: &[u8] = match canvas.get_pixel(x, y) {
                1 => b"0;90;100m",
                2 => b"0;37;47m",
                3 => b"0;97;107m",
                _ => b"0;30;40m",
            };
            text.extend_from_slice(b"\x1b[");
            text.extend_from_slice(ce);
            text.extend_from_slice(b" \x1b[0m");
        }
        if y != canvas.height - 1 {
            text.push(b'\n');
        }
    }
    text.extend_from_slice(
        b"\nDedicated to the 8 bit game developers of past and present.\nOriginal 8 bit image from Plaguemon by hikikomori. Redis ver. 7.0.15\n",
    );
    Reply::Verbatim(text)
}

struct Skyscraper {
    xoff: i32,
    width: i32,
    height: i32,
    windows: bool,
    color: u8,
}

fn generate_skyscraper(e: &mut Engine, canvas: &mut Canvas, si: &Skyscraper) {
    let starty = canvas.height - 1;
    let endy = starty - si.height + 1;
    let mut y = starty;
    while y >= endy {
        for x in si.xoff..si.xoff + si.width {
            if y == endy && (x <= si.xoff + 1 || x >= si.xoff + si.width - 2) {
                continue;
            }
            let mut color = si.color;
            if si.windows && x > si.xoff + 1 && x < si.xoff + si.width - 2 && y > endy + 1 && y < starty - 1 {
                let relx = x - (si.xoff + 1);
                let rely = y - (endy + 1);
                if (relx / 2) % 2 != 0 && rely % 2 != 0 {
                    loop {
                        color = 1 + (rand(e) % 2) as u8;
                        if color != si.color {
                            break;
                        }
                    }
                    if relx % 2 != 0 {
                        color = canvas.get_pixel(x - 1, y);
                    }
                }
            }
            canvas.draw_pixel(x, y, color);
        }
        y -= 1;
    }
}

fn generate_skyline(e: &mut Engine, canvas: &mut Canvas) {
    let h = canvas.height;
    for color in [2u8, 1] {
        let mut offset = -10;
        while offset < canvas.width {
            offset += (rand(e) % 8) as i32;
            let width = 10 + (rand(e) % 9) as i32;
            let r = rand(e) as i32;
            let height = if color == 2 { h / 2 + (r % h) / 2 } else { h / 2 + (r % h) / 3 };
            let si = Skyscraper { xoff: offset, width, height, windows: false, color };
            generate_skyscraper(e, canvas, &si);
            offset += if color == 2 { width / 2 } else { width + 1 };
        }
    }
    let mut offset = -10;
    while offset < canvas.width {
        offset += (rand(e) % 8) as i32;
        let mut width = 5 + (rand(e) % 14) as i32;
        if width % 4 != 0 {
            width += width % 3;
        }
        let height = h / 3 + (rand(e) as i32 % h) / 2;
        let si = Skyscraper { xoff: offset, width, height, windows: true, color: 0 };
        generate_skyscraper(e, canvas, &si);
        offset += width + 5;
    }
}
