export const USAGE = `dshkit — run an AI agent's tool calls through the dshkit pipeline

Usage:
  dshkit run [CALLS.jsonl] [--config cordis.yml] [--root DIR] [--log session.jsonl|postgres://…#SESSION_ID] [--approve web] [--trace] [--json]
  dshkit tools [--config cordis.yml] [--root DIR] [--json]
  dshkit log SESSION.jsonl|postgres://…#SESSION_ID [--json]
  dshkit grants [revoke ID] [--file FILE | --root DIR] [--json]
  dshkit hooks accept [--file FILE | --root DIR] [--json]
  dshkit approvals serve --db postgres://… [--workspace NAME] [--port PORT]
  dshkit rewind SESSION.jsonl --to CALL_ID [--apply] [--force] [--root DIR] [--json]
  dshkit explain CALLS.jsonl [--config cordis.yml] [--root DIR] [--json]
  dshkit replay SESSION.jsonl|postgres://…#SESSION_ID --config other.yml [--root DIR] [--json]
  dshkit stats SESSION.jsonl|postgres://…#SESSION_ID [--json]
  dshkit mcp serve [--config cordis.yml] [--root DIR] [--log session.jsonl|postgres://…#SESSION_ID] [--http PORT]
  dshkit <command> --help
  dshkit --version

With no CALLS file, \`dshkit run\` runs the bundled demo in a temporary copy of its workspace.
Exit codes: 0 every call ran and was recorded (tool errors are results), 1 bad input, boot failure,
or a call not run or not recorded, 2 usage, 3 (replay) a call that ran would now be denied, 130 interrupted.`

export const COMMAND_HELP: Record<string, string> = {
  approvals: `dshkit approvals serve --db 'postgres://USER@HOST/DB[?schema=NAME]' [--workspace NAME] [--port PORT]

Serves the approval page (@dshkit/approval-web) on the team's asks and grants in PostgreSQL
(@dshkit/approval-postgres): every worker's pending asks of the workspace show up live, an answer
here reaches the worker that asked (the first answer anywhere wins), and grants can be revoked.
It runs no tools itself. Its URL, with the token it needs, is printed on stderr; stop with Ctrl-C.

  --db URL          the database the workers' approval-postgres uses (?schema= as theirs)
  --workspace NAME  the workspace whose asks and grants to serve (default: the current directory,
                    approval-postgres's default)
  --port PORT       the page's port on 127.0.0.1 (default: any free port)`,
  grants: `dshkit grants [--file FILE | --root DIR] [--json]
       dshkit grants revoke ID [--file FILE | --root DIR] [--json]

Lists the stored "always" answers of @dshkit/user-approval — exact grants (one tool with exactly
these arguments, by sha256) and rule grants (a permission-policy-style rule) — with their ids; or
revokes one, so the next matching call is asked about again (running processes see it at once).

  --root DIR   the project whose .dshkit/grants.json to use (default: current directory)
  --file FILE  the grants file itself (user-approval's \`grants\` option)
  --json       print {file, grants} (or {file, revoked}) as JSON

A corrupt or hand-edited file that is not valid is reported naming the file and the problem.`,
  hooks: `dshkit hooks accept [--file FILE | --root DIR] [--json]

The hook bridges (hooks-claude-code, hooks-codex) refuse to start when a hook settings file changed
since a person last accepted it: a tool could have written a hook that answers every ask. Review the
files the refusal names, then accept their present content with this command.

  --root DIR   the project whose .dshkit/hooks-accepted.json to update (default: current directory)
  --file FILE  the snapshot itself (the bridges' \`accepted\` option)
  --json       print {file, files: [{file, changed}]} as JSON`,
  run: `dshkit run [CALLS.jsonl] [options]

Runs each line of CALLS.jsonl — {"name", "arguments", "callId"?} — through dsh-base, prints every
result and who decided it, and keeps a durable session log.

  --config FILE   boot from a cordis.yml instead of the embedded dsh-base default
  --root DIR      sandbox root and working directory for file tools (default: current directory)
  --log FILE      session log (JSONL) to append to (default: none, memory only), or
                  'postgres://USER@HOST/DB[?schema=NAME]#SESSION_ID': that session in PostgreSQL
                  (one writer at a time; another worker's session is refused until it ends)
  --approve web   answer approval asks on a local web page (127.0.0.1, any free port); its URL,
                  with the token it needs, is printed on stderr at start
  --trace         every result carries meta.trace (each plugin's turn); \`dshkit stats\` counts
                  who decided from it
  --json          one JSON object per line instead of the human report

An argument may be {"$from": "<earlier callId>", "path": "meta.spill.id"} to use a value from an
earlier call's result (for example a spill id). A line that is not JSON, has no "name", names an
unknown tool or refers to a missing result is reported as FILE:LINE and skipped; other lines run.
Without --log (and no session store in the config) nothing is kept, and the last line says so.
--root and --trace go to the @dshkit/dsh-base (or fs-sandbox / tools) entries; a config with none
of them is an error rather than an option silently ignored. Without CALLS.jsonl, the bundled demo runs (its own cordis.yml, workspace and calls).`,
  tools: `dshkit tools [options]

Lists the registered tools with their JSON Schemas.

  --config FILE   boot from a cordis.yml instead of the embedded dsh-base default
  --root DIR      sandbox root (default: current directory)
  --json          print the schemas as JSON`,
  log: `dshkit log SESSION.jsonl [--json]
       dshkit log 'postgres://USER@HOST/DB[?schema=NAME]#SESSION_ID' [--json]

Replays a session log without changing it: every call with its result, context messages, and the
calls that were started but never finished (interrupted by a crash). A postgres:// location reads
one session of @dshkit/session-store-postgres (the id after #, percent-encoded); without #SESSION_ID
it lists the sessions stored there.`,
  rewind: `dshkit rewind SESSION.jsonl --to CALL_ID [--apply] [--force] [--root DIR] [--json]

Restores the files the recorded calls changed, from CALL_ID on, to their content before CALL_ID,
from the before-images @dshkit/fs-checkpoint kept in SESSION.jsonl.checkpoints/. Without --apply it
only prints the plan: files restored, files deleted because a recorded call created them, files
skipped and why, and shell calls or jobs whose changes are not tracked.

  --to ID     the call (or an earlier rewind) to go back to before; \`dshkit log\` lists the ids
  --apply     change the files; the rewind is recorded in the log and can itself be rewound
  --force     also overwrite or delete files someone changed since the agent's last recorded change
  --root DIR  only touch files under DIR (default: the current folder)
  --json      print the plan (and result) as JSON

Files no recorded call created are never deleted; a .git folder is never touched; files outside the
current folder (or --root DIR) are never touched, whatever the log says.`,
  explain: `dshkit explain CALLS.jsonl [--config cordis.yml] [--root DIR] [--json]

For each line of CALLS.jsonl (as \`dshkit run\` reads it), what a run would decide — allow, ask (and who
would ask) or deny (who, why) — and each plugin's turn: validation, pre-execute listeners, guards
and the approval that would be asked. Nothing runs: no body, no wrapper, no post-execute listener,
no approval prompt, no session log. Listeners see exec.dryRun; one that cannot judge without running
something says so (shown with !). --json prints one {"type":"explain", line, ...} object per call.
A line that run would refuse (not JSON, no "name", an unknown tool) is an input problem: exit 1.`,
  replay: `dshkit replay SESSION.jsonl --config other.yml [--root DIR] [--json]
       dshkit replay 'postgres://USER@HOST/DB[?schema=NAME]#SESSION_ID' --config other.yml [--json]

Re-judges every recorded tool/call of a session log under another configuration, running no body,
and prints what would change: allowed → denied (by whom, which rule), denied → allowed, newly asked.
The log is only read (no session store opens). --root is the workspace the sandbox rules judge paths
against (default: current directory). --json prints one {"type":"call", before, after, changed,
breaking} object per recorded call and a {"type":"summary"}.

Exit codes: 0 no call that ran would now be denied, 3 some would (a policy change to look at before
it ships), 1 bad log or config, 2 usage.`,
  stats: `dshkit stats SESSION.jsonl [--json]
       dshkit stats 'postgres://USER@HOST/DB[?schema=NAME]#SESSION_ID' [--json]

Counts, per tool, the calls that were allowed, denied, asked about, failed, timed out, spilled and
interrupted, with latency percentiles (p50/p90/p99, from each tool/call to its tool/result); and per
plugin and rule, how often each allowed, denied, asked or did something else (from meta.trace when
the log has it, otherwise from who decided each failure). --json prints one {"type":"stats"} object.`,
  mcp: `dshkit mcp serve [options]

Serves the registered tools to an MCP client (Claude Code, Codex, ...). Every call runs through the
pipeline: permission rules, sandbox, hooks, approval (asked through the client when it supports
elicitation), timeouts, spill (spill_read is one of the tools) and the session log.

  --config FILE   boot from a cordis.yml instead of the embedded dsh-base default
  --root DIR      sandbox root and working directory for file tools (default: current directory)
  --log FILE      session log (JSONL) to append every call and result to, or
                  'postgres://USER@HOST/DB[?schema=NAME]#SESSION_ID' (a session in PostgreSQL)
  --http PORT     Streamable HTTP at http://127.0.0.1:PORT/mcp (0 = any free port) instead of stdio;
                  every request needs the header Authorization: Bearer TOKEN (printed on stderr,
                  or fixed with DSHKIT_MCP_TOKEN, at least 32 characters)

On stdio, stdout carries only MCP messages; everything else goes to stderr. It serves until the
client closes stdin (stdio) or until Ctrl-C / SIGTERM (HTTP).`,
}
