//! The HTML report's structure, escaping and self-containment, without a browser (the
//! headless-browser check is `tools/html_report_check.sh`).

use warpcheck_report::html::{LaunchRow, LineHeat, Page, SourceHeat, escape, render};
use warpcheck_report::{Code, Finding, Location, Severity, Sources};

const FILE: &str = "dir/k<1>.cu";
const SOURCE: &str = "__global__ void k(float *out) {\n\
    __shared__ float tile[32][32];\n\
    if (threadIdx.x < 32 && out) { tile[threadIdx.x][0] = 1; }\n\
    const char *s = \"</td><script>alert('x')</script>\";\n\
    out[threadIdx.x] = tile[0][threadIdx.x];\n\
}\n";

fn at(line: u32) -> Location {
    Location {
        file: FILE.into(),
        line,
        column: 5,
    }
}

fn launches(seconds: f64) -> Vec<LaunchRow> {
    vec![
        LaunchRow {
            index: 1,
            kernel: "k<\"a\">".into(),
            grid: [4, 1, 1],
            block: [32, 1, 1],
            shared: 0,
            lane_instructions: 12345,
            seconds,
            site: Some(Location {
                file: FILE.into(),
                line: 40,
                column: 0,
            }),
            reused: false,
        },
        LaunchRow {
            index: 2,
            kernel: "k<\"a\">".into(),
            grid: [8, 2, 1],
            block: [32, 1, 1],
            shared: 64,
            lane_instructions: 999,
            seconds,
            site: None,
            reused: false,
        },
    ]
}

fn findings() -> Vec<Finding> {
    vec![
        Finding::new(
            Code::BankConflict,
            Severity::Warning,
            "shared store with 32-way bank conflict <script>",
        )
        .kernel("k<\"a\">")
        .at(at(3), "lanes & banks")
        .note("note with <b>markup</b>")
        .help("pad to [32][33]"),
    ]
}

fn heat() -> Vec<SourceHeat> {
    vec![SourceHeat {
        kernel: "k<\"a\">".into(),
        file: FILE.into(),
        lines: vec![
            LineHeat {
                line: 1,
                warp_executions: 4,
                thread_executions: 128,
                ..LineHeat::default()
            },
            LineHeat {
                line: 3,
                warp_executions: 8,
                thread_executions: 256,
                shared_requests: 4,
                shared_wavefronts: 128,
                bank_conflicts: 124,
                worst_bank_degree: 32,
                ..LineHeat::default()
            },
            LineHeat {
                line: 5,
                warp_executions: 4,
                thread_executions: 128,
                global_requests: 4,
                global_sectors: 16,
                global_ideal_sectors: 16,
                shared_requests: 4,
                shared_wavefronts: 4,
                ..LineHeat::default()
            },
        ],
    }]
}

fn page(seconds: f64) -> String {
    let mut sources = Sources::new();
    sources.insert(FILE, SOURCE);
    let (l, f, h) = (launches(seconds), findings(), heat());
    let page = Page {
        title: "warpcheck check k.cu <&>".into(),
        launches: &l,
        findings: &f,
        heat: &h,
    };
    render(&page, &mut sources)
}

/// The text of the table row whose `id` is given.
fn row<'a>(html: &'a str, id: &str) -> &'a str {
    let start = html
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no row {id}"));
    let end = html[start..].find("</tr>").expect("row ends") + start;
    &html[start..end]
}

#[test]
fn escape_replaces_every_markup_character() {
    assert_eq!(
        escape(r#"<a href="x">&'</a>"#),
        "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;"
    );
    assert_eq!(escape("plain text"), "plain text");
}

#[test]
fn the_page_loads_nothing_from_outside() {
    let html = page(0.001);
    for resource in [
        "http:", "https:", "src=", "<link", "@import", "url(", "<script", "<img", "<iframe",
    ] {
        assert!(!html.contains(resource), "the page contains `{resource}`");
    }
    assert_eq!(html.matches("<style>").count(), 1);
    assert!(html.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"));
    assert!(html.ends_with("</html>\n"));
}

#[test]
fn program_text_is_escaped_everywhere() {
    let html = page(0.001);
    // The source line, the finding's message and note, the kernel and file names.
    assert!(html.contains(
        "const char *s = &quot;&lt;/td&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;;"
    ));
    assert!(html.contains("bank conflict &lt;script&gt;"));
    assert!(html.contains("note with &lt;b&gt;markup&lt;/b&gt;"));
    assert!(html.contains("<code>k&lt;&quot;a&quot;&gt;</code>"));
    assert!(html.contains("dir/k&lt;1&gt;.cu:3:5"));
    assert!(html.contains("<title>warpcheck report: warpcheck check k.cu &lt;&amp;&gt;</title>"));
    assert!(!html.contains("<b>"));
    // Markup is balanced: the escaped `</td>` in the source did not end a cell.
    for tag in ["tr", "td", "table", "section", "article", "ul", "li"] {
        let open =
            html.matches(&format!("<{tag}>")).count() + html.matches(&format!("<{tag} ")).count();
        let close = html.matches(&format!("</{tag}>")).count();
        assert_eq!(
            open, close,
            "<{tag}> opened {open} times, closed {close} times"
        );
    }
}

#[test]
fn the_launch_table_lists_every_launch() {
    let html = page(0.0025);
    let table = &html[html
        .find("<table id=\"launch-table\">")
        .expect("launch table")..];
    let table = &table[..table.find("</table>").expect("table ends")];
    assert_eq!(table.matches("<tr class=\"launch\">").count(), 2);
    assert!(table.contains(
        "<td class=\"num\">1</td><td class=\"mono\">k&lt;&quot;a&quot;&gt;</td>\
         <td class=\"mono\">(4,1,1)</td><td class=\"mono\">(32,1,1)</td>\
         <td class=\"num\">0</td><td class=\"num\">12345</td>\
         <td class=\"num time\">2.500</td><td class=\"mono\">dir/k&lt;1&gt;.cu:40</td>"
    ));
    assert!(table.contains("<td class=\"mono\">(8,2,1)</td>"));
}

#[test]
fn a_reused_launch_says_so_instead_of_a_time() {
    let mut sources = Sources::new();
    sources.insert(FILE, SOURCE);
    let mut l = launches(0.5);
    l[1].reused = true;
    let (f, h) = (findings(), heat());
    let page = Page {
        title: "t".into(),
        launches: &l,
        findings: &f,
        heat: &h,
    };
    let html = render(&page, &mut sources);
    assert_eq!(
        html.matches("<td class=\"num time\">500.000</td>").count(),
        1
    );
    assert_eq!(
        html.matches("<td class=\"num time\">reused</td>").count(),
        1
    );
}

#[test]
fn the_conflicting_line_is_the_hottest_bank_cell_and_links_its_finding() {
    let html = page(0.001);
    let hot = row(&html, "view-1-line-3");
    assert!(
        hot.starts_with("id=\"view-1-line-3\"")
            && html.contains("<tr class=\"hot\" id=\"view-1-line-3\"")
    );
    assert!(
        hot.contains("<td class=\"num bank heat-5\">31.00 (32-way)</td>"),
        "{hot}"
    );
    assert!(
        hot.contains("<td class=\"num exec heat-5\">8</td>"),
        "{hot}"
    );
    assert!(hot.contains("<a href=\"#finding-1\" class=\"warning\">bank-conflict</a>"));
    assert!(html.contains("<article class=\"finding warning\" id=\"finding-1\">"));
    // A conflict-free shared access and a coalesced global one are not shaded.
    let calm = row(&html, "view-1-line-5");
    assert!(
        calm.contains("<td class=\"num bank\">0.00 (1-way)</td>"),
        "{calm}"
    );
    assert!(
        calm.contains("<td class=\"num sectors\">4.00 (4.00)</td>"),
        "{calm}"
    );
    // Lines that did not run (context) have empty counts and class `cold`.
    assert!(html.contains("<tr class=\"cold\" id=\"view-1-line-2\""));
    assert!(
        !html.contains("id=\"view-1-line-8\""),
        "two lines of context at most"
    );
}

#[test]
fn the_page_is_deterministic_apart_from_the_times() {
    assert_eq!(page(0.001), page(0.001));
    let (a, b) = (page(0.001), page(0.002));
    let differing: Vec<(&str, &str)> = a.lines().zip(b.lines()).filter(|(x, y)| x != y).collect();
    assert_eq!(differing.len(), 2, "one line per launch");
    assert!(
        differing
            .iter()
            .all(|(x, _)| x.contains("<td class=\"num time\">1.000</td>"))
    );
}
