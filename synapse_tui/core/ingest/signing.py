"""ed25519 signatures over the canonical fact message (SPEC section 4).

A signature is checked against the bytes we rebuild from the fact, never against
anything the fact says about itself: a claim of provenance earns nothing.
"""

from __future__ import annotations

import json
from enum import IntEnum

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    PublicFormat,
)


class SigState(IntEnum):
    """What the cryptography said, before any question of whom we trust."""

    NONE = 0  # no signature attached
    VALID = 1  # verifies under the key it names
    INVALID = 2  # malformed, wrong algorithm, or does not verify


def canonical_message(fact_id: str, created_at: str, text: str) -> bytes:
    """The signed bytes: sorted keys, compact separators, no ASCII escaping."""
    obj = {"created_at": created_at, "id": fact_id, "text": text}
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def verify(signature: dict | None, fact_id: str, created_at: str, text: str) -> SigState:
    if signature is None:
        return SigState.NONE
    if signature.get("alg") != "ed25519":
        return SigState.INVALID
    try:
        key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(signature["key"]))
        key.verify(bytes.fromhex(signature["sig"]), canonical_message(fact_id, created_at, text))
    except (InvalidSignature, ValueError, KeyError, TypeError):
        return SigState.INVALID
    return SigState.VALID


def public_key_hex(private_key: Ed25519PrivateKey) -> str:
    return private_key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()


def private_key_from_seed(seed: bytes) -> Ed25519PrivateKey:
    """Deterministic keys (the sample generator and the tests need reproducible signatures)."""
    return Ed25519PrivateKey.from_private_bytes(seed)


def sign(private_key: Ed25519PrivateKey, fact_id: str, created_at: str, text: str) -> dict:
    """The interchange `signature` object for a fact."""
    sig = private_key.sign(canonical_message(fact_id, created_at, text))
    return {"alg": "ed25519", "key": public_key_hex(private_key), "sig": sig.hex()}
