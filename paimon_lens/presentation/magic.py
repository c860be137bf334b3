"""The ``%paimon_explain`` IPython magic (``%load_ext paimon_lens``).

Line form: options, a table, the keyword ``WHERE`` and the predicate, verbatim::

    %paimon_explain data/events20 WHERE country = 'DE' AND score > 90
    %paimon_explain --truth --snapshot 3 -o rep orders WHERE status = 'pending'

Cell form: options on the line, a ``SELECT`` statement in the cell; only its table and its
``WHERE`` clause matter (``ORDER BY``, ``GROUP BY``, ``LIMIT`` are ignored)::

    %%paimon_explain --truth
    SELECT * FROM `data/orders_dv20` WHERE status = 'pending' AND qty > 3

The table is a variable of the notebook (a :class:`~paimon_lens.table.Table`, or a string/path
naming a table directory) or a table path; quote a path with backquotes or quotes when it holds
spaces. The magic returns the :class:`~paimon_lens.pruning.explain.ExplainReport` (displayed as
HTML) and, with ``-o NAME``, also stores it in the variable ``NAME``. Mistakes (no WHERE, an
unknown table, a predicate that does not parse) raise IPython's ``UsageError`` with the reason.
"""

from __future__ import annotations

import os
from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

from ..errors import PaimonLensError

USAGE = "%paimon_explain [--snapshot S] [--truth] [--no-index] [-o VAR] TABLE WHERE <predicate>"


def split_where(text: str) -> tuple[str, str] | None:
    """``(before, predicate)`` around the first ``WHERE`` keyword outside quotes, or ``None``."""
    quote: str | None = None
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if quote is not None:
            if c == quote:
                quote = None
        elif c in "'\"`":
            quote = c
        elif (c in "wW" and text[i:i + 5].upper() == "WHERE" and (i == 0 or not _word(text[i - 1]))
              and (i + 5 == n or not _word(text[i + 5]))):
            return text[:i], text[i + 5:]
        i += 1
    return None


def _word(c: str) -> bool:
    return c.isalnum() or c in "_$"


def _unquote(ref: str) -> str:
    ref = ref.strip()
    if len(ref) >= 2 and ref[0] == ref[-1] and ref[0] in "'\"`":
        return ref[1:-1]
    return ref


def split_select(sql: str) -> tuple[str, str]:
    """``(table reference, WHERE predicate)`` of a ``SELECT ... FROM t WHERE ...`` statement."""
    from sqlglot.errors import TokenError
    from sqlglot.tokens import TokenType

    from ..predicate.parser import PaimonLensDialect

    try:
        tokens = PaimonLensDialect().tokenize(sql)
    except TokenError as e:
        raise UsageError(f"cannot read the SQL statement: {e}") from None
    if not tokens or tokens[0].token_type != TokenType.SELECT:
        raise UsageError("the cell must hold one SELECT ... FROM <table> WHERE <predicate> statement")
    depth = 0
    from_tok = where_tok = end_tok = None
    stops = {TokenType.ORDER_BY, TokenType.GROUP_BY, TokenType.LIMIT, TokenType.HAVING, TokenType.SEMICOLON,
             TokenType.QUALIFY, TokenType.WINDOW}
    for tok in tokens:
        if tok.token_type == TokenType.L_PAREN:
            depth += 1
        elif tok.token_type == TokenType.R_PAREN:
            depth -= 1
        elif depth == 0:
            if tok.token_type == TokenType.FROM and from_tok is None:
                from_tok = tok
            elif tok.token_type == TokenType.WHERE and from_tok is not None and where_tok is None:
                where_tok = tok
            elif where_tok is not None and tok.token_type in stops:
                end_tok = tok
                break
    if from_tok is None:
        raise UsageError("the SELECT statement has no FROM <table>")
    if where_tok is None:
        raise UsageError("the SELECT statement has no WHERE clause: nothing to explain")
    table = sql[from_tok.end + 1: where_tok.start]
    predicate = sql[where_tok.end + 1: end_tok.start if end_tok is not None else len(sql)]
    if not table.strip():
        raise UsageError("the SELECT statement has no table after FROM")
    return _unquote(table), predicate.strip()


@magics_class
class PaimonLensMagics(Magics):
    """``%paimon_explain`` / ``%%paimon_explain``."""

    def _table(self, ref: str) -> Any:
        from ..table.facade import Table, open_table

        ns = self.shell.user_ns if self.shell is not None else {}
        value: Any = ns.get(ref, None) if ref.isidentifier() else None
        if isinstance(value, Table):
            return value
        if isinstance(value, (str, os.PathLike)):
            ref = os.fspath(value)
        elif value is not None:
            raise UsageError(f"{ref!r} is a {type(value).__name__}, not a paimon_lens Table or a table path")
        try:
            return open_table(ref)
        except PaimonLensError as e:
            raise UsageError(f"cannot open table {ref!r}: {e}") from None

    @magic_arguments()
    @argument("-s", "--snapshot", default=None, help="snapshot id, 'earliest', 'latest', 'tag:NAME' or ISO time")
    @argument("--truth", action="store_true", help="read the data files and count the rows that truly match")
    @argument("--no-index", action="store_true", help="model file-index.read.enabled = false")
    @argument("-o", "--out", default=None, help="also store the report in this variable")
    @argument("table", nargs="?", default=None, help="line form: the table (variable or path) before WHERE")
    @line_cell_magic
    def paimon_explain(self, line: str, cell: str | None = None) -> Any:
        """Explain a predicate file by file: ``%paimon_explain TABLE WHERE ...`` or a ``%%`` SELECT cell."""
        if cell is None:
            parts = split_where(line)
            if parts is None:
                raise UsageError(f"no WHERE in {line.strip()!r}; usage: {USAGE}")
            head, predicate = parts
            args = parse_argstring(self.paimon_explain, head)
            if not args.table:
                raise UsageError(f"no table before WHERE; usage: {USAGE}")
            ref = _unquote(args.table)
        else:
            args = parse_argstring(self.paimon_explain, line)
            if args.table:
                raise UsageError(f"the cell form takes options only on its line, not {args.table!r}")
            ref, predicate = split_select(cell)
        if not predicate.strip():
            raise UsageError("the WHERE clause is empty")
        table = self._table(ref)
        if args.snapshot is not None:
            snap: int | str = int(args.snapshot) if args.snapshot.isdigit() else args.snapshot
            try:
                table = table.at(snap)
            except PaimonLensError as e:
                raise UsageError(str(e)) from None
        try:
            report = table.explain(predicate.strip(), truth=args.truth, index_enabled=not args.no_index)
        except PaimonLensError as e:
            raise UsageError(str(e)) from None
        if args.out:
            if not args.out.isidentifier():
                raise UsageError(f"-o needs a variable name, not {args.out!r}")
            if self.shell is not None:
                self.shell.user_ns[args.out] = report
        return report


def register(ipython: Any) -> None:
    """Register the magics on an IPython shell (what ``%load_ext paimon_lens`` calls)."""
    ipython.register_magics(PaimonLensMagics)
