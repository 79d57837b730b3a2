"""Kills mid-send for the exactly-once campaign, and the store seen from outside ovhooks.

A worker killed after the store applied a batch and before it recorded the answer
(``applied:N``, see ``faults/sitecustomize.py``) leaves the batch in flight. What comes next
is one of the follow-ups below; then the session is drained and what the store holds, live
and archived, is compared with the transcript.

- ``our_commit``: ``ovhooks commit`` for the session (our own commit, settling first);
- ``server_commit``: the store commits the session twice behind ovhooks' back (OpenViking's
  auto-commit, another client), then ``ovhooks flush``;
- ``sweep``: a store-side commit, then ``ovhooks sweep --ttl 0`` (the idle sweep commits);
- ``late``: a store-side commit, then a recovery (another session's SessionStart) only
  once the in-flight window is over.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

import httpx

from tests.support import ov_server
from tests.support.campaign import TOKEN

if TYPE_CHECKING:
    from tests.support.campaign import Scenario

FOLLOW_UPS = ("our_commit", "server_commit", "sweep", "late")


class Store:
    """The backend of scenario ``s``: the fake server, a real one at ``real_url``, or the
    local store, committed directly and read whole (live and archived)."""

    def __init__(self, s: Scenario, real_url: str = "") -> None:
        self.s = s
        self.real_url = real_url

    def commit(self) -> None:
        """Commit the session the way the store would on its own (not through ovhooks)."""
        if self.s.backend == "local":
            from ovhooks.backend.local import LocalBackend

            store = LocalBackend(str(self.s.root / "data"))
            try:
                store.commit(self.s.key)
            finally:
                store.close()
            return
        url = self.real_url or (self.s.fake.url if self.s.fake else "")
        response = httpx.post(f"{url}/api/v1/sessions/{self.s.key}/commit", json={}, timeout=30)
        response.raise_for_status()

    def tokens(self) -> list[str]:
        """The turn tokens the store holds for the session, in order, live and archived."""
        if not self.real_url:
            return self.s.received()
        with httpx.Client(base_url=self.real_url, timeout=30) as client:
            # archives still being processed show in both places: wait until none is
            ov_server.wait_for_session_commits(client, self.s.key, at_least=0)
            context = client.get(
                f"/api/v1/sessions/{self.s.key}/context", params={"token_budget": 10**7}
            )
            if context.status_code == 404:
                return []
            result = context.json()["result"]
            messages: list[Any] = []
            history = f"viking://~/sessions/{self.s.key}/history"
            for number in range(1, int(result["stats"]["totalArchives"]) + 1):
                read = client.get(
                    "/api/v1/content/read",
                    params={"uri": f"{history}/archive_{number:03d}/messages.jsonl"},
                )
                if read.status_code == 404:
                    continue
                read.raise_for_status()
                lines = str(read.json()["result"]).splitlines()
                messages += [json.loads(line) for line in lines if line.strip()]
            messages += result["messages"]
        texts = [json.dumps(m.get("parts")) for m in messages]
        return [tok for text in texts for tok in TOKEN.findall(text)]

    def verdict(self) -> tuple[int, int, int]:
        """(lost, duplicated, reordered), as ``Scenario.verdict`` counts them."""
        got, want = self.tokens(), self.s.expected()
        lost = len(set(want) - set(got))
        duplicated = len(got) - len(set(got))
        firsts = [t for n, t in enumerate(got) if t not in got[:n]]
        reordered = 0 if [t for t in firsts if t in want] == [t for t in want if t in firsts] else 1
        return lost, duplicated, reordered


def follow_up(s: Scenario, store: Store, how: str) -> None:
    """What happens after the kill, up to the first ovhooks run that drains the session."""
    if how == "our_commit":
        s.cli("commit", s.key)
    elif how == "server_commit":
        store.commit()
        store.commit()  # nothing new: skipped, as a second auto-commit would be
        s.cli("flush")
    elif how == "sweep":
        store.commit()
        s.cli("sweep", "--ttl", "0")
    elif how == "late":
        store.commit()
        time.sleep(float(s.env["OVHOOKS_INFLIGHT_WINDOW_S"]) + 0.05)
        s.recover("session_start")
    else:  # pragma: no cover
        raise ValueError(how)
