"""The grade of every run row: one hash join (Acero) of the run's (query, document)
pairs with the qrels'.
"""

from __future__ import annotations

import numpy as np


def _inner_join(left, right, keys, left_output, right_output):
    """Acero's hash join (inner: matched rows only), keeping the columns asked for.

    Acero builds its hash table over the right input and probes it with the
    left one; building costs more per row than probing, so the smaller table
    is made the build side (qrels judged deeper than a run is cut, say). The
    output columns are the same either way (left's, then right's); only the
    order of the matched rows may differ.
    """
    from pyarrow import acero

    columns = [*left_output, *right_output]
    if left.num_rows < right.num_rows:
        left, right, left_output, right_output = right, left, right_output, left_output
    options = acero.HashJoinNodeOptions(
        "inner", left_keys=keys, right_keys=keys,
        left_output=left_output, right_output=right_output,
    )  # fmt: skip
    plan = acero.Declaration(
        "hashjoin",
        options,
        inputs=[
            acero.Declaration("table_source", acero.TableSourceNodeOptions(left)),
            acero.Declaration("table_source", acero.TableSourceNodeOptions(right)),
        ],
    )
    return plan.to_table().select(columns)



def grades_of_run_rows(q_code, q_doc, r_code, r_doc, judged):
    """``(rows, codes, grades)`` of the run rows of judged queries, in input order: each
    row's number in the run, its query code, and its grade (NaN: not judged).

    One hash join (Acero) of the run's (query code, document) pairs with the qrels'
    (``q_code``, ``q_doc``, grades ``judged``); the query is matched by its code, as an
    integer key is cheaper than the id's text. Rows of queries the qrels do not judge
    (code -1) are left out.
    """
    import pyarrow as pa

    keep = r_code >= 0  # run rows of judged queries
    index = np.int32 if max(r_code.size, q_code.size) < 2**31 - 1 else np.int64
    left = pa.table({"q": r_code.astype(index, copy=False), "doc_id": r_doc,
                     "row": np.arange(r_code.size, dtype=index)})  # fmt: skip
    if not keep.all():
        left = left.filter(pa.array(keep))
    right = pa.table({"q": q_code.astype(index, copy=False), "doc_id": q_doc,
                      "at": np.arange(q_code.size, dtype=index)})  # fmt: skip
    joined = _inner_join(left, right, ["q", "doc_id"], ["row"], ["at"])
    del left, right
    at = np.full(r_code.size, -1, dtype=index)  # back in input order; -1: not judged
    at[joined.column("row").to_numpy()] = joined.column("at").to_numpy()
    del joined
    if keep.all():
        rows = np.arange(r_code.size, dtype=index)
    else:
        at, rows, r_code = at[keep], np.flatnonzero(keep).astype(index), r_code[keep]
    return rows, r_code, np.append(judged, np.nan)[at]  # at = -1: not judged, NaN
