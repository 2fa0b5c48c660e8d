"""Preview rendering: GFM extensions, raw HTML off, no images loaded, line anchors for scroll sync."""

from __future__ import annotations

import re

from rockskills_gui.core.text.markdown import RenderedMarkdown, render


def test_raw_html_is_text_not_markup() -> None:
    html = render("<script>alert('x')</script>\n\nHello <b>bold</b> <img src=x onerror=y>").html
    assert "<script" not in html and "<b>" not in html and "<img" not in html
    assert "&lt;script&gt;alert('x')&lt;/script&gt;" in html
    assert "&lt;b&gt;bold&lt;/b&gt;" in html


def test_gfm_tables_strikethrough_and_task_lists() -> None:
    html = render("| a | b |\n|---|:-:|\n| 1 | 2 |\n\n~~old~~ new\n\n- [x] done\n- [ ] todo\n").html
    assert "<table>" in html and "<th>" in html and "<td>" in html
    assert "<s>old</s>" in html
    assert '<li class="checked">' in html and '<li class="unchecked">' in html
    assert "<input" not in html  # Qt cannot show it; the class draws the box


def test_fenced_code_is_escaped_and_monospace_ready() -> None:
    html = render("```python\nif a < b:\n    print('<hi>')\n```\n").html
    assert '<pre><code class="language-python">' in html
    assert "if a &lt; b:" in html and "print('&lt;hi&gt;')" in html


def test_images_become_links_and_are_never_loaded() -> None:
    html = render("![a chart](https://example.com/chart.png)\n\n![](file:///etc/passwd)").html
    assert "<img" not in html
    assert '<a href="https://example.com/chart.png"' in html and "[image: a chart]" in html
    assert 'href="file:' not in html  # markdown-it refuses file: links: left as plain text


def test_links_are_kept_but_javascript_is_refused() -> None:
    html = render("[site](https://example.com) [bad](javascript:alert(1))").html
    assert '<a href="https://example.com">site</a>' in html
    assert 'href="javascript:' not in html and "[bad](javascript:alert(1))" in html


def test_line_anchors_follow_the_source() -> None:
    source = "# Title\n\npara one\nstill one\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```\nx\ny\n```\n- item\n"
    rendered = render(source)
    assert rendered.anchored_lines == (0, 2, 5, 7, 10, 11, 13)
    for line in rendered.anchored_lines:
        assert f'<a name="{RenderedMarkdown.anchor_name(line)}"></a>' in rendered.html
    names = re.findall(r'<a name="(L\d+)"></a>', rendered.html)
    assert [RenderedMarkdown.line_of_anchor(n) for n in names] == list(rendered.anchored_lines)
    assert RenderedMarkdown.line_of_anchor("top") is None
