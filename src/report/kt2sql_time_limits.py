"""kt2sql's time limits for Datasette (written by `kt2sql serve` into the
configuration's plugins/ directory; loaded with `--plugins-dir`).

Datasette has one time limit for every query (the setting
`sql_time_limit_ms`) and lets a request ask for a shorter one
(`?_timelimit=MS`); it has no limit per canned query. kt2sql's canned
queries are SQL it ships, whose time grows with the build; SQL typed into
the form is anyone's. So `kt2sql serve` sets `sql_time_limit_ms` to the
longest limit of all, and this plugin (Datasette's documented
`asgi_wrapper` hook) gives every request its own limit through
`_timelimit`: a canned query of the configuration's `queries` its
limit there, every other page (ad-hoc SQL, tables) the `default` one. A
shorter `_timelimit` the request asks for is kept.

Its configuration, under `plugins` in metadata.json:

    "kt2sql-time-limits": {"database": "build", "default": 5000,
                           "queries": {"lint": 120000, ...}}
"""

from urllib.parse import parse_qsl, urlencode

from datasette import hookimpl
from datasette.utils import tilde_decode


def limit_for(path, database, queries, default):
    """The time limit (ms) of a request for `path`: a canned query's own,
    else the default. `/DB/NAME`, `/DB/NAME.json` and `/DB/NAME.csv` are
    the canned query NAME of the database DB."""
    parts = path.strip("/").split("/")
    if len(parts) == 2 and tilde_decode(parts[0]) == database:
        name = parts[1].split(".", 1)[0]
        if name in queries:
            return int(queries[name])
    return default


def with_limit(query_string, limit):
    """The query string with `_timelimit` set to `limit`, or to the
    shorter one it asked for."""
    args = parse_qsl(query_string, keep_blank_values=True)
    for key, value in args:
        if key == "_timelimit" and value.isdigit() and 0 < int(value) < limit:
            limit = int(value)
    args = [(k, v) for k, v in args if k != "_timelimit"]
    args.append(("_timelimit", str(limit)))
    return urlencode(args)


@hookimpl
def asgi_wrapper(datasette):
    config = datasette.plugin_config("kt2sql-time-limits") or {}
    database = config.get("database", "")
    queries = config.get("queries", {})
    default = int(config.get("default", datasette.setting("sql_time_limit_ms")))

    def wrap(app):
        async def limited(scope, receive, send):
            if scope.get("type") == "http":
                limit = limit_for(scope.get("path", ""), database, queries, default)
                qs = scope.get("query_string", b"").decode("latin-1")
                scope = dict(scope, query_string=with_limit(qs, limit).encode("latin-1"))
            await app(scope, receive, send)

        return limited

    return wrap
