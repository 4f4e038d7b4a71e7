//! ASCII sparklines: models sparkline.c (`sparklineSequenceAddSample()`, `sparklineRender()`,
//! `sparklineRenderRange()`), which LATENCY GRAPH draws with. Samples are drawn as columns
//! `rows` characters high from the charset `_-`` (or `_o#` with `|` below when filled), then
//! each sample's label is written vertically under it, one character per row, after one blank
//! row. A sequence wider than `columns` is drawn in several blocks separated by a blank line.

/// One sample: its value and an optional label.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub value: f64,
    pub label: Option<Vec<u8>>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sequence {
    pub samples: Vec<Sample>,
    min: f64,
    max: f64,
    labels: usize,
}

const CHARSET: &[u8] = b"_-`";
const CHARSET_FILL: &[u8] = b"_o#";
const LABEL_MARGIN_TOP: usize = 1;

impl Sequence {
    pub fn new() -> Sequence {
        Sequence::default()
    }

    /// `sparklineSequenceAddSample()`: an empty label is no label. (Redis updates `max` only
    /// when the value is not a new minimum — `else if` — which this keeps.)
    pub fn add(&mut self, value: f64, label: &[u8]) {
        if self.samples.is_empty() {
            self.min = value;
            self.max = value;
        } else if value < self.min {
            self.min = value;
        } else if value > self.max {
            self.max = value;
        }
        let label = if label.is_empty() { None } else { Some(label.to_vec()) };
        if label.is_some() {
            self.labels += 1;
        }
        self.samples.push(Sample { value, label });
    }

    /// `sparklineRenderRange()` for samples `offset..offset+len`.
    fn render_range(&self, out: &mut Vec<u8>, rows: usize, offset: usize, len: usize, fill: bool) {
        let mut relmax = self.max - self.min;
        if relmax == 0.0 {
            relmax = 1.0;
        }
        let steps = (CHARSET.len() * rows) as i64;
        let mut row = 0usize;
        let mut chars = vec![b' '; len];
        loop {
            let mut again = false;
            chars.iter_mut().for_each(|c| *c = b' ');
            for (j, c) in chars.iter_mut().enumerate() {
                let s = &self.samples[j + offset];
                let relval = s.value - self.min;
                // `step = (int) (relval*steps)/relmax;`: the product is truncated first.
                let mut step = (((relval * steps as f64) as i64) as f64 / relmax) as i64;
                step = step.clamp(0, steps - 1);
                if row < rows {
                    let charidx = step - ((rows - row - 1) * CHARSET.len()) as i64;
                    again = true;
                    if charidx >= 0 && (charidx as usize) < CHARSET.len() {
                        *c = if fill { CHARSET_FILL[charidx as usize] } else { CHARSET[charidx as usize] };
                    } else if fill && charidx >= CHARSET.len() as i64 {
                        *c = b'|';
                    }
                } else {
                    if self.labels > 0 && row - rows < LABEL_MARGIN_TOP {
                        again = true;
                        break;
                    }
                    if let Some(label) = &s.label {
                        let label_char = row - rows - LABEL_MARGIN_TOP;
                        if label.len() > label_char {
                            again = true;
                            *c = label[label_char];
                        }
                    }
                }
            }
            if !again {
                break;
            }
            row += 1;
            out.extend_from_slice(&chars);
            out.push(b'\n');
        }
    }

    /// `sparklineRender()`.
    pub fn render(&self, out: &mut Vec<u8>, columns: usize, rows: usize, fill: bool) {
        let mut j = 0;
        while j < self.samples.len() {
            let sublen = (self.samples.len() - j).min(columns);
            if j != 0 {
                out.push(b'\n');
            }
            self.render_range(out, rows, j, sublen, fill);
            j += columns.max(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_grow_with_the_value_and_labels_hang_below() {
        let mut s = Sequence::new();
        s.add(10.0, b"2s");
        s.add(20.0, b"1s");
        s.add(40.0, b"0s");
        let mut out = Vec::new();
        s.render(&mut out, 80, 4, true);
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text, "  #\n  |\n o|\n_||\n   \n210\nsss\n");
    }

    #[test]
    fn one_sample_is_a_low_mark() {
        let mut s = Sequence::new();
        s.add(5.0, b"");
        let mut out = Vec::new();
        s.render(&mut out, 80, 4, true);
        assert_eq!(String::from_utf8(out).unwrap(), " \n \n \n_\n");
    }
}
