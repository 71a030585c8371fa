"""The grading cluster's certificates: one authority, one certificate it signs.

``python -m autograder certs --out DIR`` writes them; the instructor copies the folder to
each machine of the cluster (scheduler and workers) and keeps it from everyone else. Every
connection of the cluster is then mutual TLS (``autograder.grading.cluster.connect`` with
``--tls-dir DIR``): a machine without the key can neither join nor submit work.
"""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path
from typing import Any

from autograder.grading.cluster import CERTIFICATE_FILES

__all__ = ["write_certificates"]


def write_certificates(folder: Path, days: int = 365) -> list[Path]:
    """A certificate authority and one certificate it signs, for the scheduler, the workers
    and the instructor's client: ``ca.pem``, ``cert.pem`` and ``key.pem`` in ``folder``
    (0700; the key 0600). Give the folder to each machine of the cluster, and nobody else."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    now = dt.datetime.now(dt.UTC)

    def build(subject: str, issuer: str, key: Any, signer: Any, ca: bool) -> Any:
        return (x509.CertificateBuilder()
                .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
                .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)]))
                .public_key(key.public_key()).serial_number(x509.random_serial_number())
                .not_valid_before(now - dt.timedelta(minutes=5))
                .not_valid_after(now + dt.timedelta(days=days))
                .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
                .sign(signer, hashes.SHA256()))

    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(
        ec.SECP256R1())
    ca = build("reftensor grading CA", "reftensor grading CA", ca_key, ca_key, True)
    cert = build("reftensor grading", "reftensor grading CA", key, ca_key, False)
    pem = serialization.Encoding.PEM
    contents = {
        "ca.pem": ca.public_bytes(pem),
        "cert.pem": cert.public_bytes(pem),
        "key.pem": key.private_bytes(pem, serialization.PrivateFormat.PKCS8,
                                     serialization.NoEncryption()),
    }
    written = []
    for name in CERTIFICATE_FILES:
        path = folder / name
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(contents[name])
        os.chmod(path, 0o600)
        written.append(path)
    return written
