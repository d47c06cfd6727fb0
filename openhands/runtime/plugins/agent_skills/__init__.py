"""The ``agent_skills`` plugin: helper functions inside the IPython kernel (runtime.md §7).

- file_ops/file_ops.py: open_file, goto_line, scroll_down, scroll_up, search_dir, search_file, find_file
- file_editor.py: file_editor (the str_replace_editor with its JSON output wrapper)
- file_reader/file_readers.py: parse_pdf, parse_docx, parse_pptx, parse_latex (optional converters)
- agentskills.py: the star-import module and the DOCUMENTATION string
- plugin.py: the sandbox-side plugin (no process of its own)
"""
