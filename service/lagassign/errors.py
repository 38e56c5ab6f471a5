"""Errors the service and the CLI report, and the one JSON shape they take.

    Exception
     └── LagassignError                 code, HTTP status, message, details
          ├── BadRequest (ValueError)   400 invalid_json / invalid_request
          │    └── WrongGroup           400 wrong_group (its members are in another group)
          ├── InvalidHost               400 invalid_host
          ├── Unauthorized              401 unauthorized
          ├── UnknownGroup              404 not_found
          │    ├── UnresolvedGroup      404 unknown_group (no member of a topic-id request is known)
          │    └── UnknownTopicId       404 unknown_topic (a topic id the view does not know yet)
          ├── AmbiguousGroup            409 ambiguous_group (its members are in several groups)
          ├── RequestTimeout            408 request_timeout
          ├── TooLarge                  413 too_large
          ├── UnsupportedMediaType      415 unsupported_media_type
          └── Unavailable               503 unavailable

Every error reaches the caller as
``{"error": {"code": ..., "message": ..., "details": ...}}``.
"""

from __future__ import annotations

from typing import Any


class LagassignError(Exception):
    """Base of every error; a subclass names its ``code`` and ``status`` where it is declared:
    ``class TooLarge(LagassignError, code="too_large", status=413)``. A subclass that
    names no status keeps its parent's."""

    code = "error"
    status = 500

    def __init_subclass__(cls, *, code: str, status: int | None = None) -> None:
        super().__init_subclass__()
        cls.code = code
        if status is not None:
            cls.status = status

    def __init__(self, message: str, details: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details

    def body(self) -> dict[str, Any]:
        """The error JSON of the HTTP contract."""
        return {"error": {"code": self.code, "message": self.message, "details": self.details}}


class BadRequest(LagassignError, ValueError, code="invalid_request", status=400): ...


class InvalidJson(BadRequest, code="invalid_json"): ...


class WrongGroup(BadRequest, code="wrong_group"):
    """An ``/assign`` request whose members the lag view knows in another group, none in its own."""


class InvalidHost(LagassignError, code="invalid_host", status=400): ...


class Unauthorized(LagassignError, code="unauthorized", status=401): ...


class UnknownGroup(LagassignError, code="not_found", status=404): ...


class UnresolvedGroup(UnknownGroup, code="unknown_group"):
    """A topic-id ``/assign`` request none of whose members the lag view knows yet."""


class UnknownTopicId(UnknownGroup, code="unknown_topic"):
    """A topic-id ``/assign`` request naming a topic id the lag view has not seen yet."""


class AmbiguousGroup(LagassignError, code="ambiguous_group", status=409):
    """A topic-id ``/assign`` request whose known members belong to more than one group."""


class RequestTimeout(LagassignError, code="request_timeout", status=408): ...


class TooLarge(LagassignError, code="too_large", status=413): ...


class UnsupportedMediaType(LagassignError, code="unsupported_media_type", status=415): ...


class Unavailable(LagassignError, code="unavailable", status=503): ...
