"""`pylon ws baseline [NAME]`: capture the checkout state under refs/pylon/.../baselines/NAME."""

from __future__ import annotations

from pylon.workspace import git, refs
from pylon.workspace import state as st
from pylon.workspace.current import fresh_state, refresh_head
from pylon.workspace.repo import Checkout


def baseline(checkout: Checkout, name: str = "last") -> dict[str, object]:
    """Capture now and point the baseline ref at the new state commit (replacing an older one)."""
    refs.check_name(name)
    ref = refs.baseline_ref(checkout, name)
    previous = _ref_value(checkout, ref)
    exact = name != "last"  # a named baseline is a deliberate snapshot: bits and empty folders too (exact.py)
    fresh = None if exact else fresh_state(checkout)
    if fresh is not None:
        state = refresh_head(checkout, fresh)
        state.label = f"baseline {name}"
        state.commit = st.commit_tree(
            checkout,
            state.worktree,
            [p for p in (state.head,) if p] + _index_parent(checkout, state),
            st.state_message(state, None),
        )
        st.update_refs(checkout, [(ref, state.commit)])
        source = "watch"
    else:
        state = st.capture(checkout, label=f"baseline {name}", extra_refs=[ref], exact=exact)
        source = "scan"
    return {"name": name, "ref": ref, "replaced": previous, "source": source, **state.to_dict()}


def _index_parent(checkout: Checkout, state: st.State) -> list[str]:
    """Anchor the index tree too when it differs from HEAD's tree (an index commit as parent)."""
    if not state.index_tree:
        return []
    head_tree = git.run(["rev-parse", "-q", "--verify", "HEAD^{tree}"], cwd=checkout.root, ok=(0, 1)).decode().strip()
    if state.index_tree == head_tree:
        return []
    return [st.commit_tree(checkout, state.index_tree, [state.head] if state.head else [], "pylon index\n")]


def _ref_value(checkout: Checkout, ref: str) -> str | None:
    out = git.run(["rev-parse", "-q", "--verify", ref], cwd=checkout.root, ok=(0, 1)).decode().strip()
    return out or None


def delete(checkout: Checkout, name: str) -> dict[str, object]:
    refs.check_name(name)
    ref = refs.baseline_ref(checkout, name)
    previous = _ref_value(checkout, ref)
    if previous is None:
        from pylon.errors import NotFoundError

        raise NotFoundError(
            "unknown-baseline",
            f"This checkout has no baseline named {name!r}.",
            "List baselines with `pylon ws status`.",
        )
    st.update_refs(checkout, [], deletes=[ref])
    return {"name": name, "ref": ref, "deleted": previous}


def list_baselines(checkout: Checkout) -> list[dict[str, object]]:
    """This checkout's baselines, newest first: name, commit, captured time, HEAD then."""
    prefix = refs.baselines_prefix(checkout)
    out = git.run(
        ["for-each-ref", "--sort=-committerdate", "--format=%(refname)%00%(objectname)%00%(contents)%00%00", prefix],
        cwd=checkout.root,
    )
    items: list[dict[str, object]] = []
    for record in out.decode("utf-8", "replace").split("\0\0\n"):
        if not record.strip("\n"):
            continue
        ref, commit, message = (record.lstrip("\n").split("\0") + ["", ""])[:3]
        parsed = st.parse_state(b"tree \n\n" + message.encode(), commit)
        items.append(
            {
                "name": ref[len(prefix) :],
                "ref": ref,
                "commit": commit,
                "head": parsed.head,
                "branch": st.short_branch(parsed.branch),
                "captured_at": st.iso(parsed.captured_at) if parsed.captured_at else None,
            }
        )
    return items
