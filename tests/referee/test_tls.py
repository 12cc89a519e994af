"""TLS and mutual TLS between the referee and Python SDK bots.

Every certificate is made here, in the test, with ``cryptography``: a CA, a server
certificate for ``localhost`` (the bots dial 127.0.0.1 and check the name with
SPITE_TLS_SERVER_NAME), a client certificate from the same CA, and one from another CA.
The referee is real (127.0.0.1:0) and the bots are real ``sample_bots/greedy`` processes.
"""

from __future__ import annotations

import asyncio
import datetime
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from referee.core.deadlines import TimeControl
from referee.core.match import Match, MatchConfig, Policy
from referee.transports.server import RunningReferee, TlsConfig, TlsError, is_loopback, start_referee
from spite_engine import parse_rules

ROOT = Path(__file__).resolve().parents[2]
GREEDY = ROOT / "sample_bots" / "greedy" / "bot.py"
TIME_CONTROL = TimeControl(decision_ms=2000, bank_ms=5000, connect_ms=8000)


# -- certificates ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Issued:
    cert: Path
    key: Path


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _write(directory: Path, stem: str, cert: x509.Certificate, key: ec.EllipticCurvePrivateKey) -> Issued:
    cert_path, key_path = directory / f"{stem}.crt", directory / f"{stem}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    key_path.chmod(0o600)
    return Issued(cert_path, key_path)


def make_ca(directory: Path, common_name: str) -> tuple[Issued, x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(_name(common_name)).issuer_name(_name(common_name))
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                         content_commitment=False, key_encipherment=False, data_encipherment=False,
                                         key_agreement=False, encipher_only=False, decipher_only=False),
                           critical=True)
            .sign(key, hashes.SHA256()))
    return _write(directory, common_name, cert, key), cert, key


def issue(directory: Path, stem: str, ca: tuple[Issued, x509.Certificate, ec.EllipticCurvePrivateKey],
          *, server: bool) -> Issued:
    _, ca_cert, ca_key = ca
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    builder = (x509.CertificateBuilder().subject_name(_name(stem)).issuer_name(ca_cert.subject)
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + datetime.timedelta(days=1))
               .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
               .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH if server
                                                     else ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False))
    if server:
        builder = builder.add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
    return _write(directory, stem, builder.sign(ca_key, hashes.SHA256()), key)


@dataclass(frozen=True)
class Pki:
    ca: Issued
    server: Issued
    client: Issued
    other_ca: Issued
    stranger: Issued
    """A client certificate signed by the other CA."""


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    directory = tmp_path_factory.mktemp("pki")
    ca = make_ca(directory, "spite-test-ca")
    other = make_ca(directory, "other-ca")
    return Pki(ca[0], issue(directory, "referee", ca, server=True), issue(directory, "bot", ca, server=False),
               other[0], issue(directory, "stranger", other, server=False))


# -- playing over TLS --------------------------------------------------------------------------


def bot_env(address: str, token: str, **tls: str | Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPITE_")}
    env.update(SPITE_ADDRESS=address, SPITE_TOKEN=token, SPITE_CONNECT_TIMEOUT="3")
    env.update({f"SPITE_TLS_{k.upper()}": str(v) for k, v in tls.items()})
    return env


@dataclass
class Run:
    match: Match
    returncodes: list[int]
    stderr: list[str]


async def play(referee: RunningReferee, envs: list[dict[str, str]], wait_s: float = 60.0,
               commands: list[list[str]] | None = None) -> Run:
    """Two greedy bot processes (Python unless ``commands`` says otherwise), one per seat,
    each with its own environment."""
    match = referee.arena.create(MatchConfig(parse_rules("kings-only+short-15"), ["a", "b"], TIME_CONTROL, 1, 7,
                                             Policy.FORFEIT))
    processes = []
    for seat, env, command in zip(match.seats, envs, commands or [[sys.executable, str(GREEDY)]] * len(envs)):
        env = {**env, "SPITE_TOKEN": seat.token}
        processes.append(await asyncio.create_subprocess_exec(
            *command, env=env, cwd=GREEDY.parent,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE))
    try:
        outputs = await asyncio.wait_for(asyncio.gather(*(p.communicate() for p in processes)), wait_s)
        await asyncio.wait_for(match.finished.wait(), wait_s)
    finally:
        for process in processes:
            if process.returncode is None:
                process.kill()
                await process.wait()
    return Run(match, [p.returncode or 0 for p in processes], [err.decode() for _, err in outputs])


def serve_and_play(tls: TlsConfig, envs: list[dict[str, str]],
                   commands: list[list[str]] | None = None) -> tuple[Run, str]:
    async def main() -> tuple[Run, str]:
        referee = await start_referee("127.0.0.1:0", tls=tls)
        try:
            filled = [{**env, "SPITE_ADDRESS": referee.address} for env in envs]
            return await play(referee, filled, commands=commands), referee.mode
        finally:
            await referee.stop(grace=0.2)
    return asyncio.run(main())


def test_a_whole_match_over_tls(pki: Pki) -> None:
    env = bot_env("", "", ca=pki.ca.cert, server_name="localhost")
    run, mode = serve_and_play(TlsConfig(pki.server.cert, pki.server.key), [env, env])
    assert mode == "TLS"
    assert run.returncodes == [0, 0], run.stderr
    assert [r.outcome.ending.by_rules for r in run.match.results] == [True]
    assert all(seat.report.status == "done" for seat in run.match.seats)


def test_a_client_that_does_not_trust_the_ca_fails_clearly(pki: Pki) -> None:
    """No SPITE_TLS_CA (system roots), and another CA: both fail the handshake, say so, and
    the seat that did trust the referee wins by the other's absence."""
    good = bot_env("", "", ca=pki.ca.cert, server_name="localhost")
    for untrusting in (bot_env("", "", server_name="localhost"),
                       bot_env("", "", ca=pki.other_ca.cert, server_name="localhost")):
        run, _ = serve_and_play(TlsConfig(pki.server.cert, pki.server.key), [untrusting, good])
        assert run.returncodes[0] == 1 and run.returncodes[1] == 0, run.stderr
        assert "cannot reach the referee" in run.stderr[0] and "TLS" in run.stderr[0], run.stderr[0]
        assert "SPITE_TLS_CA" in run.stderr[0]
        assert run.match.results[0].outcome.offender == 0


def test_a_plaintext_client_cannot_talk_to_a_tls_referee(pki: Pki) -> None:
    plain = bot_env("", "")
    good = bot_env("", "", ca=pki.ca.cert, server_name="localhost")
    run, _ = serve_and_play(TlsConfig(pki.server.cert, pki.server.key), [plain, good])
    assert run.returncodes == [1, 0], run.stderr
    assert run.match.results[0].outcome.offender == 0


def test_mutual_tls_admits_only_clients_with_a_certificate_from_the_ca(pki: Pki) -> None:
    mutual = TlsConfig(pki.server.cert, pki.server.key, client_ca=pki.ca.cert)
    good = bot_env("", "", ca=pki.ca.cert, server_name="localhost", cert=pki.client.cert, key=pki.client.key)
    run, mode = serve_and_play(mutual, [good, good])
    assert mode == "mutual TLS"
    assert run.returncodes == [0, 0], run.stderr
    assert run.match.results[0].outcome.ending.by_rules

    no_cert = bot_env("", "", ca=pki.ca.cert, server_name="localhost")
    wrong_ca = bot_env("", "", ca=pki.ca.cert, server_name="localhost", cert=pki.stranger.cert,
                       key=pki.stranger.key)
    for refused in (no_cert, wrong_ca):
        run, _ = serve_and_play(mutual, [refused, good])
        assert run.returncodes == [1, 0], run.stderr
        assert not run.match.seats[0].connected.is_set()  # never got as far as its seat
        assert run.match.results[0].outcome.offender == 0 and run.match.results[0].outcome.winners == (1,)


def test_the_sdk_refuses_a_certificate_without_its_key(pki: Pki) -> None:
    env = bot_env("127.0.0.1:1", "t", ca=pki.ca.cert, cert=pki.client.cert)
    done = subprocess.run([sys.executable, str(GREEDY)], env=env, cwd=GREEDY.parent, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2
    assert "SPITE_TLS_CERT and SPITE_TLS_KEY go together" in done.stderr


@pytest.fixture(scope="module")
def go_greedy(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """sample_bots/go-greedy built with the Go toolchain (the Go SDK speaks TLS too)."""
    from tests.languages.common import require

    go = require("go", "the Go toolchain (Debian: golang-go)")
    binary = tmp_path_factory.mktemp("go") / "go-greedy"
    subprocess.run([go, "build", "-o", str(binary), "."], cwd=ROOT / "sample_bots" / "go-greedy", check=True,
                   timeout=600)
    return [str(binary)]


@pytest.mark.slow  # a cold Go build of the SDK: a minute
def test_the_go_sdk_plays_over_mutual_tls(pki: Pki, go_greedy: list[str]) -> None:
    mutual = TlsConfig(pki.server.cert, pki.server.key, client_ca=pki.ca.cert)
    good = bot_env("", "", ca=pki.ca.cert, server_name="localhost", cert=pki.client.cert, key=pki.client.key)
    python = [sys.executable, str(GREEDY)]
    run, _ = serve_and_play(mutual, [good, good], commands=[go_greedy, python])
    assert run.returncodes == [0, 0], run.stderr
    assert run.match.results[0].outcome.ending.by_rules
    no_cert = bot_env("", "", ca=pki.ca.cert, server_name="localhost")
    run, _ = serve_and_play(mutual, [no_cert, good], commands=[go_greedy, python])
    assert run.returncodes == [1, 0], run.stderr
    assert "over TLS: check SPITE_TLS_CA" in run.stderr[0], run.stderr[0]
    assert run.match.results[0].outcome.offender == 0


# -- the referee's side: files and the CLI ----------------------------------------------------


def test_missing_or_unreadable_tls_files_are_refused_before_listening(pki: Pki, tmp_path: Path) -> None:
    with pytest.raises(TlsError, match="cannot read the TLS private key .*nope.key"):
        asyncio.run(start_referee("127.0.0.1:0", tls=TlsConfig(pki.server.cert, tmp_path / "nope.key")))
    not_pem = tmp_path / "cert.txt"
    not_pem.write_text("hello")
    with pytest.raises(TlsError, match="not a PEM file"):
        TlsConfig(not_pem, pki.server.key).credentials()
    with pytest.raises(TlsError, match="client CA"):
        TlsConfig(pki.server.cert, pki.server.key, tmp_path / "ca.pem").credentials()


def test_loopback_addresses() -> None:
    assert all(map(is_loopback, ["127.0.0.1:0", "localhost:50051", "[::1]:9", "unix:/tmp/x.sock", "127.3.2.1:5"]))
    assert not any(map(is_loopback, ["0.0.0.0:50051", "[::]:1", "10.0.0.2:50051", "example.org:443", ":50051"]))


def spite(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "spite_cli.main", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, env=env)


def test_cli_refuses_bad_tls_arguments(pki: Pki, tmp_path: Path) -> None:
    only_cert = spite("referee", "--listen", "127.0.0.1:0", "--tls-cert", str(pki.server.cert))
    assert only_cert.returncode == 2 and "--tls-cert and --tls-key go together" in only_cert.stderr
    missing_key = spite("referee", "--listen", "127.0.0.1:0", "--tls-cert", str(pki.server.cert),
                        "--tls-key", str(tmp_path / "missing.key"))
    assert missing_key.returncode == 2
    assert "cannot read the TLS private key" in missing_key.stderr and "missing.key" in missing_key.stderr
    assert "Traceback" not in missing_key.stderr
    ca_alone = spite("referee", "--tls-client-ca", str(pki.ca.cert))
    assert ca_alone.returncode == 2 and "needs --tls-cert and --tls-key" in ca_alone.stderr
    open_plain = spite("referee", "--listen", "0.0.0.0:0")
    assert open_plain.returncode == 2 and "refusing to listen on 0.0.0.0:0 without TLS" in open_plain.stderr


def test_cli_referee_serves_mutual_tls_and_a_bot_plays_through_it(pki: Pki, tmp_path: Path) -> None:
    """``spite referee --tls-cert --tls-key --tls-client-ca`` as a process; a match created
    over the admin API (itself over mutual TLS) and played by two greedy processes."""
    import grpc

    from spite.v1 import referee_pb2 as rpb
    from spite.v1 import referee_pb2_grpc

    admin_file = tmp_path / "admin.token"
    referee = subprocess.Popen(
        [sys.executable, "-m", "spite_cli.main", "referee", "--listen", "127.0.0.1:0", "--admin-token-file",
         str(admin_file), "--tls-cert", str(pki.server.cert), "--tls-key", str(pki.server.key),
         "--tls-client-ca", str(pki.ca.cert), "--grace", "0.2"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert referee.stdout is not None
        line = referee.stdout.readline()
        assert line.startswith("spite referee listening on 127.0.0.1:") and line.rstrip().endswith("(mutual TLS)"), line
        address = line.split()[4]
        credentials = grpc.ssl_channel_credentials(pki.ca.cert.read_bytes(), pki.client.key.read_bytes(),
                                                   pki.client.cert.read_bytes())

        async def create() -> list[str]:
            async with grpc.aio.secure_channel(address, credentials,
                                               options=[("grpc.ssl_target_name_override", "localhost")]) as channel:
                reply = await referee_pb2_grpc.RefereeStub(channel).CreateMatch(
                    rpb.CreateMatchRequest(rules="kings-only+short-15", seats=[rpb.SeatSpec(name="a"),
                                                                               rpb.SeatSpec(name="b")], seed=3,
                                           # CreateMatch guesses nothing now (issue 12, item 8): every field given
                                           time_control=rpb.TimeControl(decision_ms=1000, bank_ms=10_000,
                                                                        connect_ms=10_000),
                                           games=1, policy=rpb.POLICY_SUBSTITUTE),
                    metadata=(("spite-admin-token", admin_file.read_text().strip()),), timeout=10)
                return list(reply.seat_tokens)

        tokens = asyncio.run(create())
        env = bot_env(address, "", ca=pki.ca.cert, server_name="localhost", cert=pki.client.cert,
                      key=pki.client.key)
        bots = [subprocess.Popen([sys.executable, str(GREEDY)], env={**env, "SPITE_TOKEN": token}, cwd=GREEDY.parent,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for token in tokens]
        for bot in bots:
            _, err = bot.communicate(timeout=60)
            assert bot.returncode == 0, err
    finally:
        referee.send_signal(signal.SIGTERM)
        referee.communicate(timeout=30)
    assert referee.returncode == 0
