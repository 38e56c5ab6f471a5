"""The cases of ``contract/``, and the service they were answered by.

``python -m tests.service.contract_cases`` answers every valid request of
``contract/requests/valid/`` that asks for the ``packed`` form with the service
itself and writes ``contract/answers/valid/<name>.json``, then derives the invalid
answers of ``contract/answers/invalid/`` from them (one fault each). Run it after a
change of the answer's shape; ``tests/service/test_contract_cases.py`` checks the
folder against the running service.

The service here is the app with a lag view whose consumer index knows the topic
ids and members of the topic-id cases (the broker plugin's requests): the group
``plugin-group``, its members ``m-1`` .. ``m-3``, its topics ``t0`` and ``t1``.
"""

from __future__ import annotations

import asyncio
import base64
import copy
import json
import struct
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx

from lagassign.http.app import create_app
from lagassign.settings import Settings
from tests.service.contract_reader import read_packed
from tests.service.fake_lag_view import FakeLagView, snapshot_of
from tests.service.serving import served

CONTRACT = Path(__file__).resolve().parents[2] / "contract"
TOPIC_IDS = {"b9qb0e5ZQXmcN3DmxEsbQA": "t0", "Qt6_XhnXQLmtryQsRG34Zw": "t1"}
PLUGIN_GROUP = "plugin-group"
PLUGIN_MEMBERS = ["m-1", "m-2", "m-3"]
PLUGIN_LAGS = {"t0": [9_000, 10, 10, 10], "t1": [5_000, 4_000]}

Case = dict[str, Any]


def cases(folder: str) -> dict[str, Case]:
    """``contract/<folder>/*.json`` by name (the file name without ``.json``)."""
    return {
        path.stem: json.loads(path.read_text())
        for path in sorted((CONTRACT / folder).glob("*.json"))
    }


def contract_view() -> FakeLagView:
    view = FakeLagView({PLUGIN_GROUP: snapshot_of(PLUGIN_GROUP, PLUGIN_LAGS)})
    view.consumer_index.rebuild({PLUGIN_GROUP: PLUGIN_MEMBERS}, TOPIC_IDS)
    return view


@asynccontextmanager
async def contract_service() -> AsyncIterator[httpx.AsyncClient]:
    """A client of the service as the contract's cases were answered by."""
    app = create_app(Settings.from_environ({}), lag_view=contract_view())
    async with served(app) as client:
        yield client


def encoded(numbers: list[int]) -> str:
    return base64.b64encode(struct.pack(f"<{len(numbers)}I", *numbers)).decode()


def packed_member(topic_indices: list[int], partitions: list[int]) -> dict[str, str]:
    return {"topic_indices": encoded(topic_indices), "partitions": encoded(partitions)}


def pairs_of(member: dict[str, str]) -> list[tuple[int, int]]:
    arrays = [base64.b64decode(member[key]) for key in ("topic_indices", "partitions")]
    count = len(arrays[0]) // 4
    indices, ids = (struct.unpack(f"<{count}I", array) for array in arrays)
    return list(zip(indices, ids, strict=True))


def packed_pairs(pairs: list[tuple[int, int]]) -> dict[str, str]:
    return packed_member([t for t, _ in pairs], [p for _, p in pairs])


def faulted(case: Case, fault: Callable[[dict[str, Any], dict[str, Any]], None]) -> Case:
    """A copy of the valid ``case`` whose answer ``fault`` broke (in place)."""
    answer = copy.deepcopy(case["answer"])
    fault(case["request"], answer)
    return {"request": case["request"], "answer": answer}


def first_given(answer: dict[str, Any]) -> str:
    """The first member given something."""
    return str(next(m for m, v in answer["assignment"].items() if v["partitions"]))


def first_empty(answer: dict[str, Any]) -> str:
    """The first member given nothing."""
    return str(next(m for m, v in answer["assignment"].items() if not v["partitions"]))


def give_twice(request: dict[str, Any], answer: dict[str, Any]) -> None:
    members = list(answer["assignment"])
    giver = first_given(answer)
    taker = next(m for m in members if m != giver)
    pairs = pairs_of(answer["assignment"][taker]) + pairs_of(answer["assignment"][giver])[:1]
    answer["assignment"][taker] = packed_pairs(sorted(pairs))


def give_to_nobody(request: dict[str, Any], answer: dict[str, Any]) -> None:
    member = first_given(answer)
    answer["assignment"][member] = packed_pairs(pairs_of(answer["assignment"][member])[1:])


def add_unknown_member(request: dict[str, Any], answer: dict[str, Any]) -> None:
    answer["assignment"]["stranger"] = packed_member([], [])


def leave_out_member(request: dict[str, Any], answer: dict[str, Any]) -> None:
    del answer["assignment"][first_empty(answer)]


def rename_topic(request: dict[str, Any], answer: dict[str, Any]) -> None:
    answer["topics"][0] = "not-in-the-request"


def index_past_topics(request: dict[str, Any], answer: dict[str, Any]) -> None:
    member = first_empty(answer)
    answer["assignment"][member] = packed_member([len(answer["topics"])], [0])


def partition_past_count(request: dict[str, Any], answer: dict[str, Any]) -> None:
    member = first_given(answer)
    pairs = pairs_of(answer["assignment"][member])
    t = pairs[-1][0]
    count = request["partitions"][answer["topics"][t]]
    answer["assignment"][member] = packed_pairs([*pairs, (t, count)])


def bad_base64(request: dict[str, Any], answer: dict[str, Any]) -> None:
    answer["assignment"][first_given(answer)]["partitions"] = "AQ*AAA=="


def unequal_arrays(request: dict[str, Any], answer: dict[str, Any]) -> None:
    member = first_given(answer)
    pairs = pairs_of(answer["assignment"][member])
    answer["assignment"][member]["partitions"] = encoded([p for _, p in pairs][:-1])


def ragged_bytes(request: dict[str, Any], answer: dict[str, Any]) -> None:
    member = answer["assignment"][first_given(answer)]
    for key in ("topic_indices", "partitions"):
        member[key] = base64.b64encode(base64.b64decode(member[key])[:-1]).decode()


def descending(request: dict[str, Any], answer: dict[str, Any]) -> None:
    member = next(m for m, v in answer["assignment"].items() if len(pairs_of(v)) > 1)
    answer["assignment"][member] = packed_pairs(pairs_of(answer["assignment"][member])[::-1])


def topics_form(request: dict[str, Any], answer: dict[str, Any]) -> None:
    """The people's form where the machines' was asked for."""
    topics = answer.pop("topics")
    for side in ("assignment", "revoked"):
        answer[side] = {
            m: {topics[t]: [p for u, p in pairs_of(v) if u == t] for t, _ in pairs_of(v)}
            for m, v in answer[side].items()
        }


def indexed_form(request: dict[str, Any], answer: dict[str, Any]) -> None:
    """The removed ``indexed`` form: ``[[topic_index, [partition, ...]], ...]``."""
    for side in ("assignment", "revoked"):
        answer[side] = {
            m: [
                [t, [p for u, p in pairs_of(v) if u == t]]
                for t in sorted({t for t, _ in pairs_of(v)})
            ]
            for m, v in answer[side].items()
        }


def not_subscribed(request: dict[str, Any], answer: dict[str, Any]) -> None:
    """compact: c-2 and c-3 read ``audit`` only; give c-2 a partition of ``payments``."""
    donor = next(m for m in ("c-0", "c-1") if pairs_of(answer["assignment"][m]))
    pairs = pairs_of(answer["assignment"][donor])
    answer["assignment"][donor] = packed_pairs(pairs[1:])
    taker = "c-2"
    answer["assignment"][taker] = packed_pairs(
        sorted([*pairs_of(answer["assignment"][taker]), pairs[0]])
    )


def withheld_in_eager(request: dict[str, Any], answer: dict[str, Any]) -> None:
    member = first_given(answer)
    pairs = pairs_of(answer["assignment"][member])
    answer["assignment"][member] = packed_pairs(pairs[1:])
    answer["revoked"][member] = packed_pairs(pairs[:1])


def unknown_topic_id(request: dict[str, Any], answer: dict[str, Any]) -> None:
    answer["topics"][1] = "AAAAAAAAAAAAAAAAAAAAAA"


#: name -> (the valid case it breaks, the fault, why a reader refuses it)
FAULTS: dict[str, tuple[str, Callable[[dict[str, Any], dict[str, Any]], None], str]] = {
    "partition_given_twice": ("eager", give_twice, "a partition is given to two members"),
    "partition_given_to_nobody": (
        "eager",
        give_to_nobody,
        "a partition of a subscribed topic is given to nobody (eager: nothing is withheld)",
    ),
    "unknown_member": ("eager", add_unknown_member, "the answer names a member not in the request"),
    "member_left_out": (
        "member_given_nothing",
        leave_out_member,
        "a member of the request is missing (one given nothing has two empty strings)",
    ),
    "topic_not_in_request": (
        "several_topics",
        rename_topic,
        "'topics' names a topic the request does not",
    ),
    "topic_id_not_in_request": (
        "topic_ids",
        unknown_topic_id,
        "'topics' names a topic id the request does not",
    ),
    "topic_index_past_topics": (
        "member_given_nothing",
        index_past_topics,
        "a topic index points past 'topics'",
    ),
    "partition_past_count": (
        "several_topics",
        partition_past_count,
        "a partition number is not below its topic's partition count",
    ),
    "bad_base64": ("eager", bad_base64, "an array is not standard base64"),
    "arrays_of_different_lengths": (
        "several_topics",
        unequal_arrays,
        "topic_indices and partitions hold different counts of numbers",
    ),
    "not_whole_numbers": (
        "eager",
        ragged_bytes,
        "the arrays' bytes are not a whole number of 32-bit integers",
    ),
    "not_ascending": (
        "large",
        descending,
        "a member's (topic index, partition) pairs are not in ascending order",
    ),
    "topics_form": ("eager", topics_form, "the topics form (for people) where packed was asked"),
    "indexed_form": ("compact", indexed_form, "the removed indexed form"),
    "not_subscribed": (
        "compact",
        not_subscribed,
        "a partition is given to a member not subscribed to its topic",
    ),
    "withheld_in_eager": (
        "eager",
        withheld_in_eager,
        "an eager answer withholds a partition in 'revoked'",
    ),
}


async def answer_all() -> dict[str, Case]:
    """Each packed valid request with the service's answer and its decoded assignment."""
    out: dict[str, Case] = {}
    async with contract_service() as client:
        for name, request in cases("requests/valid").items():
            if request.get("answer_form") != "packed":
                continue
            response = await client.post("/assign", content=json.dumps(request))
            assert response.status_code == 200, (name, response.text)
            answer = response.json()
            assignment, revoked = read_packed(request, answer)
            out[name] = {
                "request": request,
                "answer": answer,
                "assignment": assignment,
                "revoked": revoked,
            }
    return out


def write(folder: str, name: str, case: Case) -> None:
    indent = None if name.startswith("large") or name == "not_ascending" else 1
    (CONTRACT / folder / f"{name}.json").write_text(json.dumps(case, indent=indent) + "\n")


def main() -> None:
    valid = asyncio.run(answer_all())
    for name, case in valid.items():
        write("answers/valid", name, case)
    for name, (source, fault, why) in FAULTS.items():
        write("answers/invalid", name, {**faulted(valid[source], fault), "why": why})


if __name__ == "__main__":
    main()
