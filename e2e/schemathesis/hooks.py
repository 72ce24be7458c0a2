"""Hooks of the fuzzing run (e2e/src/fuzz.e2e.test.ts), loaded through SCHEMATHESIS_HOOKS.

Spec section 8 allows a token 100 reads and 60 writes a minute and an address 200 requests: a fuzzer on
one token from one address would meet little but 429 after a few seconds. Each request therefore goes out
with the next of several tokens of the same owner and project, from an address of its own
(X-Forwarded-For, which the Verdict under test trusts from loopback), so that the run reaches the routes
rather than the limits. The limits themselves are tested by the gateway's access tests.

The token is set by an auth provider rather than written into the headers: schemathesis then knows the
credentials are real, and its ignored_auth check sends each operation once without them and once with
invalid ones, expecting a refusal.
"""

import itertools
import os

import schemathesis

TOKENS = os.environ["VERDICT_FUZZ_TOKENS"].split(",")
ADMIN_KEY = os.environ["VERDICT_FUZZ_ADMIN_KEY"]
# Counters rather than `random`: hypothesis drives the run and wants no other source of randomness.
_calls = itertools.count()
_tokens = itertools.count()


@schemathesis.auth(refresh_interval=None)
class VerdictTokens:
    """The admin key on the admin API, else the next token of the demo owner."""

    def get(self, case, ctx):
        if case.operation.path.startswith("/admin/"):
            return ADMIN_KEY
        return TOKENS[next(_tokens) % len(TOKENS)]

    def set(self, case, data, ctx):
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}


@schemathesis.hook
def before_call(context, case, kwargs):
    n = next(_calls)
    headers = {name: value for name, value in (case.headers or {}).items() if name.lower() != "x-forwarded-for"}
    headers["X-Forwarded-For"] = f"10.{(n >> 16) & 255}.{(n >> 8) & 255}.{n & 255}"
    case.headers = headers
