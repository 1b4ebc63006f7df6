//! nvcc accepts kernel launches written with spaces inside the chevrons, `k << <grid,
//! block >> > (args)`; clang lexes `<<<` and `>>>` only as single tokens. When clang fails
//! on such a file, the front end compiles a copy with those launches respelt `<<<` … `>>>`.
//!
//! Only lines that open a launch with a spaced `<< <` are touched, and on them only the first
//! spaced `>> >` after it, so template argument lists such as `vector<vector<int>> >` on
//! other lines are left alone. Neither spaced form can occur in valid C++ outside a launch.

/// The source with spaced launch chevrons closed up, and the 1-based lines changed; `None`
/// when there is nothing to change.
pub fn close_up_launch_chevrons(source: &str) -> Option<(String, Vec<usize>)> {
    let mut changed = Vec::new();
    let mut output = String::with_capacity(source.len());
    for (index, line) in source.split_inclusive('\n').enumerate() {
        match close_up_line(line) {
            Some(fixed) => {
                changed.push(index + 1);
                output.push_str(&fixed);
            }
            None => output.push_str(line),
        }
    }
    (!changed.is_empty()).then_some((output, changed))
}

fn close_up_line(line: &str) -> Option<String> {
    let open = find_spaced(line, '<', 0)?;
    let (open_start, open_end) = open;
    let close = find_spaced(line, '>', open_end)?;
    let (close_start, close_end) = close;
    Some(format!(
        "{}<<<{}>>>{}",
        &line[..open_start],
        &line[open_end..close_start],
        &line[close_end..]
    ))
}

/// The byte range of the first `cc<ws>c` (two `c`, at least one space or tab, one `c`) at or
/// after `from`, where `c` is `<` or `>` and the run is not part of a longer run of `c`.
fn find_spaced(line: &str, c: char, from: usize) -> Option<(usize, usize)> {
    let bytes = line.as_bytes();
    let c = c as u8;
    let mut i = from;
    while i + 1 < bytes.len() {
        if bytes[i] == c && bytes[i + 1] == c && (i == 0 || bytes[i - 1] != c) {
            let mut j = i + 2;
            while j < bytes.len() && (bytes[j] == b' ' || bytes[j] == b'\t') {
                j += 1;
            }
            if j > i + 2 && j < bytes.len() && bytes[j] == c && bytes.get(j + 1) != Some(&c) {
                return Some((i, j + 1));
            }
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closes_up_spaced_launches_only() {
        let source = "k << < blocks, threads >> > (a, b);\nk<<<1, 2>>>(a);\nstd::vector<std::vector<int>> > v;\nx = a << b;\n";
        let (fixed, lines) = close_up_launch_chevrons(source).unwrap();
        assert_eq!(lines, vec![1]);
        assert_eq!(
            fixed,
            "k <<< blocks, threads >>> (a, b);\nk<<<1, 2>>>(a);\nstd::vector<std::vector<int>> > v;\nx = a << b;\n"
        );
        assert!(close_up_launch_chevrons("k<<<1, 2>>>(a);\n").is_none());
        assert_eq!(
            close_up_launch_chevrons("k<<\t<g, b>>\t>();").unwrap().0,
            "k<<<g, b>>>();"
        );
    }
}
