"""What comes in from outside: files and bytes decoded, YAML and JSON parsed with every position, `--param` values.

- `data`: The one way in for JSON and YAML: a file (or standard input) or bytes, read bounded, parsed with positions
- `document`: A parsed document: plain data plus the source position of every node
- `issues`: Issues: what is wrong in an input, where (a path into it), and how to fix it
- `json_reader`: Read JSON into a `Document`, safely and with positions
- `parameters`: Parameters in scenarios: `${KEY}` in any text value, given with `-e KEY=VALUE`, `--env-file` or
  `--secret KEY`
- `reading`: Read a scenario (or model) file into text, safely
- `suggest`: 'Did you mean …?' hints for misspelt names
- `templates`: Texts with a script's value in them (`${output.user}`), read when the step that holds them runs
- `yaml_reader`: Read YAML into a `Document`, safely and with positions
- `yaml_writer`: Write YAML that visor's own reader reads back as the same data
"""
