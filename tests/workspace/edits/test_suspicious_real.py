"""The suspicious-edit rules against real changes from public histories (bench/edits_replay.py).

Each false positive the replay found is kept here with its actual lines, trimmed to the few
around the change: the genuine edit must pass (perhaps with a warning). The duplicates that real
commits did introduce by mistake must still be refused.
"""

from __future__ import annotations

from tests.conftest import Result
from tests.workspace.edits.conftest import Ed


def _apply(ed: Ed, name: str, content: str | bytes, request: str) -> Result:
    """Write the file, read it whole with the installed `pylon read`, send the request."""
    ed.write(name, content)
    return ed.edit(name, ed.read(name), request)


def test_a_closing_end_semicolon_only_warns(ed: Ed) -> None:
    # pallets/click 19fd4d6e18, src/click/shell_completion.py (a fish script in a string)
    res = _apply(
        ed,
        "shell_completion.py",
        (
            '        else if test $metadata[1] = "plain";\n'
            "            echo $metadata[2];\n"
            "        end;\n"
            "    end;\n"
            "end;\n"
        ),
        (
            "replace 2\n"
            '+            if test $metadata[3] != "_";\n'
            "+                echo $metadata[2]\\t$metadata[3];\n"
            "+            else;\n"
            "+                echo $metadata[2];\n"
            "+            end;\n"
        ),
    )
    assert res.code == 0, res
    assert "its last new line `end;` repeats line 3 below it." in res.err


def test_an_opening_bracket_only_warns(ed: Ed) -> None:
    # simonw/sqlite-utils b4735f794a, tests/test_create.py
    res = _apply(
        ed,
        "test_create.py",
        (
            '    "col_name,col_type,not_null_default,expected_schema",\n'
            "    (\n"
            '        ("nickname", str, None, "CREATE TABLE [dogs] ( [name] TEXT , [nickname] TEXT)"),\n'
            '        ("dob", datetime.date, None, "CREATE TABLE [dogs] ( [name] TEXT , [dob] TEXT)"),\n'
        ),
        (
            "replace 3\n"
            "+        (\n"
            '+            "nickname",\n'
            "+            str,\n"
            "+            None,\n"
            '+            "CREATE TABLE [dogs] (\\n   [name] TEXT\\n, [nickname] TEXT)",\n'
            "+        ),\n"
        ),
    )
    assert res.code == 0, res
    assert "its first new line `(` repeats line 2 above it." in res.err


def test_a_repeated_list_item_only_warns(ed: Ed) -> None:
    # simonw/sqlite-utils 2fed87da6e, tests/test_create.py: a new column of values in a table
    res = _apply(
        ed,
        "test_create.py",
        (
            "        (\n"
            '            "default_str",\n'
            "            None,\n"
            '            "CREATE TABLE [dogs] ( [name] TEXT , [default_str] TEXT)",\n'
            "        ),\n"
        ),
        "insert after 3\n+            None,\n",
    )
    assert res.code == 0, res
    assert "its first new line `None,` repeats line 3 above it." in res.err


def test_a_line_the_neighbourhood_already_repeats_only_warns(ed: Ed) -> None:
    # simonw/sqlite-utils 094b010fd8, tests/test_tracer.py: an expected trace gains one more query
    view = "        (\"select name from sqlite_master where type = 'view'\", None),\n"
    table = "        (\"select name from sqlite_master where type = 'table'\", None),\n"
    pragma = '        ("PRAGMA recursive_triggers=on;", None),\n'
    res = _apply(
        ed,
        "test_tracer.py",
        "    assert collected == [\n" + pragma + view + table + view + table,
        "insert after 5\n+" + view[:-1] + "\n",
    )
    assert res.code == 0, res
    assert "repeats line 5 above it" in res.err and "warning:" in res.err


def test_repeated_tokens_in_a_crlf_file_only_warn(ed: Ed) -> None:
    # PowerShell/PSReadLine 355bd0894a, test/DynamicHelpTest.cs (CRLF)
    pad = " " * 24
    res = _apply(
        ed,
        "DynamicHelpTest.cs",
        "".join(
            f"{pad}{t}\r\n"
            for t in (
                'TokenClassification.Parameter, "-Date",',
                "NextLine,",
                "emptyLine,",
                'TokenClassification.None, $"-Date <name>",',
                "NextLine,",
                "emptyLine,",
                'TokenClassification.None, "DESC: Specifies a date and time.",',
            )
        ),
        f"replace 3\n+{pad}NextLine,\nreplace 6\n+{pad}NextLine,\n",
    )
    assert res.code == 0, res
    assert ed.bytes("DynamicHelpTest.cs").count(b"NextLine,\r\n") == 4


def test_whitespace_only_lines_do_not_decide_the_indentation(ed: Ed) -> None:
    # psf/requests f66eafdffd, requests/core.py ("Docstring whitespace"): tab-indented docstrings
    # become space-indented; the lines left around hold only a tab, which is not indentation.
    res = _apply(
        ed,
        "core.py",
        (
            "class RequestException(Exception):\n"
            '\t"""There was an ambiguous exception that occured while handling your request."""\n'
            "\n"
            "class AuthenticationError(RequestException):\n"
            '\t"""The authentication credentials provided were invalid."""\n'
            "\t\n"
            "class URLRequired(RequestException):\n"
            '\t"""A valid URL is required to make a request."""\n'
            "\t\n"
        ),
        (
            'replace 2\n+    """There was an ambiguous exception that occured while handling your request."""\n'
            'replace 5\n+    """The authentication credentials provided were invalid."""\n'
            'replace 8\n+    """A valid URL is required to make a request."""\n'
        ),
    )
    assert res.code == 0, res


def test_a_reindent_is_judged_by_the_lines_it_leaves(ed: Ed) -> None:
    # PowerShell/PSReadLine ba44b6dbbb, PSReadline.dll-help.xml: tabs become spaces in every
    # indented line; the lines being replaced do not count as the style around the change.
    res = _apply(
        ed,
        "help.xml",
        (
            "<!--Generated by PS Help Cmdlet Editor-->\n"
            "\t<command:details>\n"
            "\t\t<command:name>Get-PSReadlineKeyHandler</command:name>\n"
            "\t\t<maml:description>\n"
            "\t\t\t<maml:para>Gets the key bindings for the PSReadline module.</maml:para>\n"
            "\t\t</maml:description>\n"
            "\t</command:details>\n"
            "</command:command>\n"
        ),
        (
            "replace 2-7\n"
            "+    <command:details>\n"
            "+      <command:name>Get-PSReadlineKeyHandler</command:name>\n"
            "+      <maml:description>\n"
            "+        <maml:para>Gets the key bindings for the PSReadline module.</maml:para>\n"
            "+      </maml:description>\n"
            "+    </command:details>\n"
        ),
    )
    assert res.code == 0, res


def test_a_duplicated_comment_line_is_still_refused(ed: Ed) -> None:
    # psf/requests ba45b9d890, docs/conf.py: the commit kept the comment and added a copy of it
    res = _apply(
        ed,
        "conf.py",
        (
            "#html_use_smartypants = True\n"
            "\n"
            "# Custom sidebar templates, maps document names to template names.\n"
            "#html_sidebars = {}\n"
            "\n"
        ),
        (
            "replace 4\n"
            "+# Custom sidebar templates, maps document names to template names.\n"
            "+html_sidebars = {\n"
            "+    'index':    ['sidebarintro.html', 'sourcelink.html', 'searchbox.html'],\n"
            "+}\n"
        ),
    )
    assert res.code == 3 and "its first new line repeats line 3 just above the change" in res.err, res


def test_a_duplicated_yaml_key_is_still_refused(ed: Ed) -> None:
    # simonw/sqlite-utils dfb2dbe967, .github/workflows/test-sqlite-support.yml: the commit added
    # the key a second time (a YAML mapping's keys must be unique); a later commit removed it.
    res = _apply(
        ed,
        "test.yml",
        (
            "        allow-prereleases: true\n"
            "        cache: pip\n"
            "        cache-dependency-path: setup.py\n"
            "    - name: Set up SQLite ${{ matrix.sqlite-version }}\n"
        ),
        "insert after 3\n+        cache-dependency-path: setup.py\n",
    )
    assert res.code == 3 and "its first new line repeats line 3 just above the change" in res.err, res


def test_the_first_line_after_a_bom_counts_as_indentation(ed: Ed) -> None:
    res = _apply(ed, "bom.cs", b"\xef\xbb\xbf\tint a;\nint b;\n", "insert after 2\n+    int c;\n")
    assert res.code == 3 and "the lines around it indent only with tabs" in res.err, res


def test_re_indenting_the_same_text_is_intended(ed: Ed) -> None:
    # psf/requests f66eafdffd, requests/core.py: tab-indented code stays above, the docstrings
    # below are re-indented with spaces, text unchanged.
    res = _apply(
        ed,
        "core.py",
        (
            "\t\tif autoauth_url in url: \n"
            "\t\t\treturn auth\n"
            "\t\t\t\n"
            "\treturn None\n"
            "\n"
            "class AuthenticationError(RequestException):\n"
            '\t"""The authentication credentials provided were invalid."""\n'
            "\t\n"
            "class URLRequired(RequestException):\n"
            '\t"""A valid URL is required to make a request."""\n'
        ),
        (
            'replace 7\n+    """The authentication credentials provided were invalid."""\n'
            'replace 10\n+    """A valid URL is required to make a request."""\n'
        ),
    )
    assert res.code == 0, res


def test_rewritten_lines_in_the_wrong_style_are_still_refused(ed: Ed) -> None:
    # The mistake the rule is for: lines re-sent with spaces in a tab file, one of them changed.
    res = _apply(
        ed,
        "f.c",
        "int f(void) {\n\tint a = 1;\n\tint b = 2;\n\treturn a + b;\n}\n\nint g(void) {\n\treturn 0;\n}\n",
        "replace 2-4\n+    int a = 1;\n+    int b = 3;\n+    return a + b;\n",
    )
    assert res.code == 3 and "indent with spaces, but the lines around it indent only with tabs" in res.err, res


def test_new_text_mostly_in_the_local_style_may_hold_other_lines(ed: Ed) -> None:
    # PowerShell/PSReadLine 98d9927b26, PSReadline.dll-help.xml: a code sample inside a tab-indented
    # XML example keeps its own four-space indentation.
    res = _apply(
        ed,
        "help.xml",
        (
            "\t\t\t\t</command:commandLine>\n"
            "\t\t\t</command:commandLines>\n"
            "\t\t</command:example>\n"
            "\t</command:examples>\n"
            "\t<maml:relatedLinks>\n"
        ),
        (
            "insert after 3\n"
            "+\t\t<command:example>\n"
            "+\t\t\t<maml:title>--------------  Example 2  --------------</maml:title>\n"
            "+\t\t\t<dev:code>PS C:\\&gt; Set-PSReadlineKeyHandler -Chord Shift+Ctrl+B -ScriptBlock {\n"
            "+    [PSConsoleUtilities.PSConsoleReadLine]::RevertLine()\n"
            "+    [PSConsoleUtilities.PSConsoleReadLine]::Insert(&apos;build&apos;)\n"
            "+&gt;&gt;&gt;     [PSConsoleUtilities.PSConsoleReadLine]::AcceptLine()\n"
            "+}</dev:code>\n"
            "+\t\t\t<dev:remarks>\n"
            "+\t\t\t</dev:remarks>\n"
            "+\t\t</command:example>\n"
        ),
    )
    assert res.code == 0, res
