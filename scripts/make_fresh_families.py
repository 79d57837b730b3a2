"""Write the issue-22 secret families: tests/fixtures/secrets_fresh/{secrets,negatives}.jsonl.

A held-out corpus through the real Stop path found kinds of secret the scrubber missed and
kinds of public value it altered. These are fresh examples of each *family* (never the
held-out corpus's own rows, which this repository does not hold), each secret with
look-alike negatives, in the placements a developer's day has: prose, fenced code, shell
commands, env files, JSON, YAML, TOML, INI and tool output. Every value is random characters
in the documented shape, from a fixed seed, so no real credential is committed.

Whole *formats* are held out (``split``): a third of each family's formats, drawn by a seeded
draw before any rule was written for them, are never looked at while tuning, so their figures
say how the fixes carry to shapes they were not written for.

    python scripts/make_fresh_families.py     # rewrites the two files
    python scripts/fresh_families_blind.py    # the blind set, through ``write`` below
"""

from __future__ import annotations

import base64
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OUT = ROOT / "tests" / "fixtures" / "secrets_fresh"
SEED = 22
HELDOUT_SHARE = 0.34
# the second, blind set (scripts/fresh_families_blind.py): all held out
BLIND = OUT.parent / "secrets_blind"

_B62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_B64 = _B62 + "+/"
_URLSAFE = _B62 + "-_"
_HEX = "0123456789abcdef"
_LOWNUM = "abcdefghijklmnopqrstuvwxyz0123456789"
_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_DJANGO = "abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*(-_=+)"
_PUNCT = _B62 + "!#$%&*+-=?@^_~.,:;|/"
_WORDS = [
    "correct",
    "horse",
    "battery",
    "staple",
    "orbit",
    "velvet",
    "maple",
    "thunder",
    "quiet",
    "lantern",
    "copper",
    "river",
    "falcon",
    "meadow",
    "crystal",
    "harbor",
    "ember",
    "willow",
    "canyon",
    "saffron",
    "glacier",
    "pepper",
    "violet",
]

Gen = Callable[[random.Random], str]


def chars(alphabet: str, n: int) -> Gen:
    return lambda rng: "".join(rng.choice(alphabet) for _ in range(n))


def uuid4(rng: random.Random) -> str:
    h = "".join(rng.choice(_HEX) for _ in range(32))
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{rng.choice('89ab')}{h[17:20]}-{h[20:]}"


def b64_of(head: bytes, size: int) -> Gen:
    """Base64 of ``head`` and ``size`` random bytes (a PEM body, a key, an image)."""
    return lambda rng: base64.b64encode(head + rng.randbytes(size)).decode()


def pem_b64(label: str, size: int) -> Gen:
    def make(rng: random.Random) -> str:
        body = base64.b64encode(rng.randbytes(size)).decode()
        lines = "\n".join(body[i : i + 64] for i in range(0, len(body), 64))
        pem = f"-----BEGIN {label}-----\n{lines}\n-----END {label}-----\n"
        return base64.b64encode(pem.encode()).decode()

    return make


def passphrase(rng: random.Random) -> str:
    words = rng.sample(_WORDS, rng.randint(3, 5))
    if rng.random() < 0.5:
        words[rng.randrange(len(words))] += str(rng.randint(2, 99))
    return " ".join(words) + rng.choice(["", "!", "?", " #7"])


def punct_key(rng: random.Random) -> str:
    while True:
        v = "".join(rng.choice(_PUNCT) for _ in range(rng.randint(14, 32)))
        if sum(not c.isalnum() for c in v) >= 3 and any(c.isdigit() for c in v):
            return v


def ksuid(rng: random.Random) -> str:
    return rng.choice("0123") + chars(_B62, 26)(rng)


def push_id(rng: random.Random) -> str:
    return "-" + rng.choice("MNO") + chars(_URLSAFE, 18)(rng)


def ulid(rng: random.Random) -> str:
    return "01" + rng.choice("GHJK") + chars(_CROCKFORD, 23)(rng)


def cuid(rng: random.Random) -> str:
    return "c" + chars(_LOWNUM, 24)(rng)


def maven(rng: random.Random) -> str:
    group = rng.choice(
        [
            "org.apache.commons",
            "com.google.guava",
            "io.netty",
            "org.slf4j",
            "com.fasterxml.jackson.core",
            "io.micrometer",
            "org.jetbrains.kotlinx",
        ]
    )
    art = rng.choice(
        [
            "commons-lang3",
            "guava",
            "netty-handler",
            "slf4j-api",
            "jackson-databind",
            "micrometer-core",
            "kotlinx-coroutines-core",
        ]
    )
    ver = f"{rng.randint(1, 33)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}"
    return f"{group}:{art}:{ver}" + rng.choice(["", "-jre", ".Final", ":jar", ":jar:sources"])


# (family, format, value, contexts); {v} is the value, the secret for secret rows
Row = tuple[str, str, Gen, tuple[str, ...]]

SECRETS: list[Row] = [
    (
        "cookie",
        "curl-b-session",
        chars(_LOWNUM, 32),
        (
            "curl -b 'sessionid={v}' https://app.example.org/api/me",
            'curl -s -b "sessionid={v}; theme=dark" https://intranet.example.com/admin/',
            "I ran `curl --cookie 'sessionid={v}' https://shop.example.net/cart` and got a 403",
        ),
    ),
    (
        "cookie",
        "cookie-header-connect",
        chars(_URLSAFE, 40),
        (
            "curl -H 'Cookie: connect.sid=s%3A{v}' https://api.example.io/v2/profile",
            "GET /dashboard HTTP/1.1\nHost: example.com\nCookie: lang=en; connect.sid={v}\n",
            "http GET https://example.dev/me 'Cookie:connect.sid={v}'",
        ),
    ),
    (
        "cookie",
        "cookie-jar-php",
        chars(_LOWNUM, 26),
        (
            "curl --cookie \"PHPSESSID={v}\" -d 'q=1' https://legacy.example.org/search.php",
            'wget --header="Cookie: PHPSESSID={v}" https://legacy.example.org/export.csv',
            'requests.get(url, cookies={{"PHPSESSID": "{v}"}})',
        ),
    ),
    (
        "cookie",
        "set-cookie-rails",
        b64_of(b"", 90),
        (
            "< HTTP/2 200\n< set-cookie: _myapp_session={v}; path=/; secure; HttpOnly\n",
            "curl -b '_myapp_session={v}' https://rails.example.com/orders",
        ),
    ),
    (
        "cookie",
        "cookie-jwt-auth",
        lambda r: "eyJhbGciOiJIUzI1NiJ9." + chars(_URLSAFE, 60)(r) + "." + chars(_URLSAFE, 43)(r),
        (
            "curl --cookie 'auth_token={v}' https://api.example.com/v1/users",
            'document.cookie = "access_token={v}; path=/"',
        ),
    ),
    (
        "cookie",
        "cookie-cli-long",
        chars(_HEX + "ABCDEF", 48),
        (
            'curl -X POST --cookie "JSESSIONID={v}" https://tomcat.example.org/app/submit',
            "Cookie: JSESSIONID={v}; Path=/app",
        ),
    ),
    (
        "framework",
        "django-secret-key",
        lambda r: "django-insecure-" + chars(_DJANGO, 50)(r),
        (
            "SECRET_KEY = '{v}'",
            '```python\n# settings.py\nDEBUG = False\nSECRET_KEY = "{v}"\n```',
            "DJANGO_SECRET_KEY={v}",
        ),
    ),
    (
        "framework",
        "django-plain",
        chars(_DJANGO, 50),
        (
            "SECRET_KEY = '{v}'",
            "export DJANGO_SECRET_KEY='{v}'",
            'settings:\n  secret_key: "{v}"\n',
        ),
    ),
    (
        "framework",
        "rails-secret-key-base",
        chars(_HEX, 128),
        (
            "production:\n  secret_key_base: {v}\n",
            "SECRET_KEY_BASE={v} bin/rails server -e production",
            'config.secret_key_base = "{v}"',
        ),
    ),
    (
        "framework",
        "flask-secret",
        chars(_URLSAFE, 32),
        (
            "app.config['SECRET_KEY'] = '{v}'",
            "app.secret_key = b'{v}'",
            "FLASK_SECRET_KEY={v}",
        ),
    ),
    (
        "framework",
        "laravel-app-key",
        lambda r: "base64:" + b64_of(b"", 32)(r),
        (
            "APP_NAME=Laravel\nAPP_ENV=production\nAPP_KEY={v}\nAPP_DEBUG=false\n",
            "php artisan config:cache  # APP_KEY={v}",
            "'key' => env('APP_KEY', '{v}'),",
        ),
    ),
    (
        "framework",
        "symfony-app-secret",
        chars(_HEX, 32),
        (
            "APP_ENV=prod\nAPP_SECRET={v}\n",
            "framework:\n    secret: '{v}'\n",
        ),
    ),
    (
        "framework",
        "phoenix-secret-key-base",
        b64_of(b"", 48),
        (
            'config :my_app, MyAppWeb.Endpoint,\n  secret_key_base: "{v}"\n',
            "SECRET_KEY_BASE={v} mix phx.server",
        ),
    ),
    (
        "framework",
        "express-session-secret",
        chars(_PUNCT, 24),
        (
            "app.use(session({{ secret: '{v}', resave: false }}))",
            'SESSION_SECRET="{v}"',
        ),
    ),
    (
        "framework",
        "nextauth-secret",
        b64_of(b"", 32),
        (
            "NEXTAUTH_SECRET={v}\nNEXTAUTH_URL=https://example.com\n",
            '[auth]\nsecret = "{v}"\n',
        ),
    ),
    (
        "passphrase",
        "gpg-passphrase-env",
        passphrase,
        (
            'GPG_PASSPHRASE="{v}"',
            "export GPG_PASSPHRASE='{v}'",
            "```\n# .env\nGPG_PASSPHRASE={v}\n```",
        ),
    ),
    (
        "passphrase",
        "ssh-key-passphrase",
        passphrase,
        (
            'SSH_KEY_PASSPHRASE="{v}"\nSSH_KEY_PATH=~/.ssh/id_ed25519\n',
            'deploy:\n  ssh_passphrase: "{v}"\n',
        ),
    ),
    (
        "passphrase",
        "borg-restic",
        passphrase,
        (
            'export BORG_PASSPHRASE="{v}"\nborg create ::daily /home',
            'RESTIC_PASSWORD="{v}" restic backup /srv',
        ),
    ),
    (
        "passphrase",
        "keystore-passphrase",
        punct_key,
        (
            "KEYSTORE_PASSPHRASE={v}",
            '{{"signing": {{"keystore_passphrase": "{v}"}}}}',
        ),
    ),
    (
        "passphrase",
        "passphrase-toml",
        passphrase,
        (
            '[signing]\npassphrase = "{v}"\n',
            'ANDROID_KEY_PASSPHRASE="{v}"',
        ),
    ),
    (
        "passphrase",
        "passphrase-unquoted-spaces",
        passphrase,
        (
            "# backup.env\nBACKUP_PASSPHRASE={v}\nBACKUP_TARGET=s3://bucket/backups\n",
            "GPG_PASSPHRASE={v}\n",
        ),
    ),
    (
        "npmrc",
        "npm-legacy-authtoken",
        uuid4,
        (
            "//registry.npmjs.org/:_authToken={v}",
            "$ cat ~/.npmrc\nregistry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken={v}\n",
            'echo "//registry.npmjs.org/:_authToken={v}" >> .npmrc',
        ),
    ),
    (
        "npmrc",
        "npm-private-registry",
        uuid4,
        (
            "@acme:registry=https://npm.acme.dev/\n//npm.acme.dev/:_authToken={v}\n",
            "//artifactory.example.com/api/npm/npm-virtual/:_authToken={v}",
        ),
    ),
    (
        "npmrc",
        "yarn-npm-auth-token",
        uuid4,
        (
            'npmRegistryServer: "https://registry.yarnpkg.com"\nnpmAuthToken: "{v}"\n',
            "npmScopes:\n  acme:\n    npmAuthToken: {v}\n",
        ),
    ),
    (
        "npmrc",
        "npm-auth-basic",
        b64_of(b"ci-bot:", 12),
        (
            "//registry.example.org/:_auth={v}",
            "_auth = {v}\nalways-auth = true\n",
        ),
    ),
    (
        "npmrc",
        "npm-password",
        b64_of(b"", 15),
        ("//registry.example.org/:_password={v}\n//registry.example.org/:username=ci\n",),
    ),
    (
        "kube",
        "client-certificate-data",
        pem_b64("CERTIFICATE", 700),
        (
            "users:\n- name: admin\n  user:\n    client-certificate-data: {v}\n",
            '{{"users": [{{"name": "admin", "user": {{"client-certificate-data": "{v}"}}}}]}}',
        ),
    ),
    (
        "kube",
        "client-key-data",
        pem_b64("RSA PRIVATE KEY", 1190),
        (
            "    client-key-data: {v}\n",
            "kubectl config view --raw\n...\n    client-key-data: {v}\n",
        ),
    ),
    (
        "kube",
        "kube-ec-key-data",
        pem_b64("EC PRIVATE KEY", 121),
        ("  user:\n    client-certificate-data: DATA+OMITTED\n    client-key-data: {v}\n",),
    ),
    (
        "kube",
        "kube-sa-token",
        lambda r: (
            "eyJhbGciOiJSUzI1NiIsImtpZCI6I"
            + chars(_URLSAFE, 40)(r)
            + ".eyJpc3MiOi"
            + chars(_URLSAFE, 300)(r)
            + "."
            + chars(_URLSAFE, 342)(r)
        ),
        ("users:\n- name: ci\n  user:\n    token: {v}\n",),
    ),
    (
        "kube",
        "kube-static-token",
        chars(_B62, 40),
        (
            "- name: deployer\n  user:\n    token: {v}\n",
            "kubectl --token={v} get pods -A",
        ),
    ),
    (
        "kube",
        "kubeadm-bootstrap-token",
        lambda r: chars(_LOWNUM, 6)(r) + "." + chars(_LOWNUM, 16)(r),
        (
            "kubeadm join 10.0.0.5:6443 --token {v} --discovery-token-ca-cert-hash sha256:"
            + "ab" * 32,
            "    token: {v}\n    ttl: 24h0m0s\n",
        ),
    ),
    (
        "punct",
        "api-key-punct",
        punct_key,
        (
            'api_key = "{v}"',
            '{{"apiKey": "{v}", "region": "eu-west-1"}}',
            "API_KEY='{v}'",
        ),
    ),
    (
        "punct",
        "client-secret-punct",
        punct_key,
        (
            'client_secret: "{v}"',
            'CLIENT_SECRET="{v}"',
            "[oauth]\nclient_secret = '{v}'\n",
        ),
    ),
    (
        "punct",
        "access-token-punct",
        punct_key,
        (
            "access_token = '{v}'",
            'config.access_token = "{v}"',
        ),
    ),
    (
        "punct",
        "secret-punct-json",
        punct_key,
        (
            '{{"webhook_secret": "{v}"}}',
            '<add key="ApiSecret" value="{v}" />',
        ),
    ),
    (
        "punct",
        "db-password-punct",
        punct_key,
        (
            "DB_PASSWORD='{v}'",
            'password: "{v}"',
            "spring.datasource.password={v}",
        ),
    ),
]

NEGATIVES: list[Row] = [
    (
        "cookie_neg",
        "curl-b-preference",
        lambda r: r.choice(["dark", "light", "en-US", "fr"]),
        (
            "curl -b 'theme={v}' https://example.org/",
            'curl --cookie "lang={v}; tz=Europe/Paris" https://example.org/news',
            "Cookie: theme={v}; consent=accepted",
        ),
    ),
    (
        "cookie_neg",
        "cookie-jar-file",
        lambda r: r.choice(["cookies.txt", "jar.txt", "/tmp/c"]),
        (
            "curl -b {v} -c {v} https://example.org/login",
            "curl --cookie-jar {v} --cookie {v} https://example.com",
        ),
    ),
    (
        "cookie_neg",
        "cookie-prose",
        lambda r: r.choice(["consent", "tracking", "session"]),
        (
            "The {v} cookie is set with SameSite=Lax and HttpOnly flags.",
            "Set-Cookie: Path=/; Secure; HttpOnly; SameSite=Strict",
        ),
    ),
    (
        "framework_neg",
        "secret-key-file",
        lambda r: r.choice(["/run/secrets/django", "/etc/app/key"]),
        (
            "SECRET_KEY_FILE={v}",
            "APP_KEY_PATH={v}",
            "secret_key_file: {v}",
        ),
    ),
    (
        "framework_neg",
        "secret-key-from-env",
        lambda r: r.choice(["SECRET_KEY", "APP_SECRET"]),
        (
            'SECRET_KEY = os.environ["{v}"]',
            'secret_key_base: <%= ENV["{v}"] %>',
            "app.config['SECRET_KEY'] = os.getenv('{v}')",
        ),
    ),
    (
        "framework_neg",
        "secret-key-docs",
        lambda r: r.choice(["generate", "rotate"]),
        (
            "Run `php artisan key:{v}` to set APP_KEY, then `python manage.py check --deploy`.",
            "SECRET_KEY_LENGTH = 50\nSECRET_KEY_MIN_ENTROPY = 4.5",
        ),
    ),
    (
        "passphrase_neg",
        "passphrase-file-or-prompt",
        lambda r: r.choice(["~/.gnupg/p.txt", "/run/pp"]),
        (
            "GPG_PASSPHRASE_FILE={v}",
            'PASSPHRASE_PROMPT="Enter passphrase for {v}: "',
            "gpg --batch --passphrase-file {v} --decrypt backup.tar.gpg",
        ),
    ),
    (
        "passphrase_neg",
        "passphrase-reference",
        lambda r: r.choice(["GPG_PASSPHRASE", "BORG_PASS"]),
        (
            "passphrase: ${{{v}}}",
            'export BORG_PASSCOMMAND="pass show backup/{v}"',
            'echo "${v}" | gpg --batch --passphrase-fd 0 -d file.gpg',
        ),
    ),
    (
        "passphrase_neg",
        "passphrase-ui-text",
        lambda r: r.choice(["key", "archive"]),
        (
            '{{"passphrase_label": "Enter the passphrase for this {v}"}}',
            'passphraseHint: "Use at least four random words"',
        ),
    ),
    (
        "uuid_neg",
        "request-id",
        uuid4,
        (
            "request id {v} failed with 502",
            '{{"requestId": "{v}", "status": 429}}',
            "X-Request-Id: {v}",
        ),
    ),
    (
        "uuid_neg",
        "uuid-in-url",
        uuid4,
        (
            "GET https://api.example.com/v1/projects/{v}/builds",
            "open http://localhost:3000/invoices/{v}/edit",
            "See https://app.example.io/runs/{v}?tab=logs",
        ),
    ),
    (
        "uuid_neg",
        "npmrc-non-secret",
        uuid4,
        (
            "//registry.npmjs.org/:_authToken=${{NPM_TOKEN}}\n# build {v}",
            'package-lock: "resolved": "https://registry.npmjs.org/x/-/x-1.0.0.tgz", "id": "{v}"',
            "trace_id={v} span_id={v}",
        ),
    ),
    (
        "public_id",
        "ksuid",
        ksuid,
        (
            "created event {v} for the user",
            '{{"id": "{v}", "type": "order.created"}}',
            "GET /api/events/{v}",
        ),
    ),
    (
        "public_id",
        "nanoid",
        chars(_URLSAFE, 21),
        (
            "the short link id is {v}",
            '{{"slug": "{v}"}}',
            "INSERT INTO links (id, url) VALUES ('{v}', 'https://example.com');",
        ),
    ),
    (
        "public_id",
        "firebase-push-id",
        push_id,
        (
            "firebase database:get /messages/{v}",
            '{{"{v}": {{"text": "hi", "uid": "alice"}}}}',
            "new message key {v} written",
        ),
    ),
    (
        "public_id",
        "ulid",
        ulid,
        (
            "job {v} finished in 3.2 s",
            "order_id: {v}",
            '{{"ulid": "{v}"}}',
        ),
    ),
    (
        "public_id",
        "cuid",
        cuid,
        (
            "prisma: Record {v} not found",
            '{{"id": "{v}", "email": "a@example.com"}}',
        ),
    ),
    ("public_id", "objectid", chars(_HEX, 24), ('db.users.find({{_id: ObjectId("{v}")}})',)),
    (
        "public_id",
        "youtube-and-short",
        chars(_URLSAFE, 11),
        ("https://www.youtube.com/watch?v={v}&t=42s",),
    ),
    (
        "base64_neg",
        "data-uri-thumb",
        b64_of(b"\x89PNG\r\n\x1a\n", 150),
        (
            '<img src="data:image/png;base64,{v}" alt="thumb">',
            '{{"thumbnail": "data:image/png;base64,{v}"}}',
        ),
    ),
    (
        "base64_neg",
        "data-uri-wrapped",
        b64_of(b"GIF89a", 400),
        ("background: url(data:image/gif;base64,{v});",),
    ),
    (
        "base64_neg",
        "jpeg-thumb-json",
        b64_of(b"\xff\xd8\xff\xe0", 120),
        (
            '{{"preview": "{v}", "width": 64}}',
            "thumbnail: {v}\n",
        ),
    ),
    (
        "base64_neg",
        "ca-data",
        pem_b64("CERTIFICATE", 700),
        (
            "clusters:\n- cluster:\n    certificate-authority-data: {v}\n    server: https://k8s:6443\n",
            "caBundle: {v}\n",
        ),
    ),
    (
        "base64_neg",
        "b64-config-json",
        lambda r: base64.b64encode(
            json.dumps(
                {
                    "feature": r.choice(["beta", "ga"]),
                    "retries": r.randint(1, 9),
                    "region": "eu-west-1",
                    "endpoints": ["https://a.example.com", "https://b.example.com"],
                }
            ).encode()
        ).decode(),
        (
            "FEATURE_CONFIG={v}",
            "data:\n  config.json: {v}\n",
        ),
    ),
    (
        "base64_neg",
        "b64-font-or-wasm",
        b64_of(b"wOF2", 180),
        ('@font-face {{ src: url("data:font/woff2;charset=utf-8;base64,{v}") }}',),
    ),
    (
        "coordinate",
        "maven",
        maven,
        (
            'implementation("{v}")',
            "mvn dependency:get -Dartifact={v}",
            "[INFO] +- {v}:compile",
            "<!-- {v} -->",
        ),
    ),
    (
        "coordinate",
        "purl-and-image",
        lambda r: (
            f"{r.choice(['nginx', 'redis', 'postgres'])}:"
            f"{r.randint(1, 17)}.{r.randint(0, 9)}-alpine@sha256:" + chars(_HEX, 64)(r)
        ),
        (
            "image: {v}",
            "docker pull {v}",
        ),
    ),
    (
        "coordinate",
        "go-pseudo-version",
        lambda r: (
            f"v0.0.0-2024{r.randint(10, 12)}"
            f"{r.randint(10, 28)}{r.randint(100000, 235959)}-" + chars(_HEX, 12)(r)
        ),
        (
            "golang.org/x/exp {v} // indirect",
            "go get golang.org/x/tools@{v}",
        ),
    ),
]


def _rows(table: list[Row], tag: str, rng: random.Random) -> list[dict[str, object]]:
    by_family: dict[str, list[str]] = {}
    for family, fmt, _g, _c in table:
        by_family.setdefault(family, []).append(fmt)
    heldout = set()
    for formats in by_family.values():
        heldout.update(rng.sample(formats, max(1, round(len(formats) * HELDOUT_SHARE))))
    rows: list[dict[str, object]] = []
    for family, fmt, make, contexts in table:
        for context in contexts:
            for _ in range(2):  # two values per context
                value = make(rng)
                row: dict[str, object] = {
                    "id": f"{tag}{len(rows) + 1000:04d}",
                    "family": family,
                    "format": fmt,
                    "split": "heldout" if fmt in heldout else "tune",
                    "text": context.format(v=value),
                }
                if tag == "s":
                    row["secret"] = value
                rows.append(row)
    return rows


def write(out: Path, secrets: list[Row], negatives: list[Row], *, blind: bool = False) -> None:
    """Write ``secrets.jsonl`` and ``negatives.jsonl`` under ``out`` from the two tables, from
    the fixed seed; a ``blind`` set is held out whole."""
    rng = random.Random(SEED)
    out.mkdir(parents=True, exist_ok=True)
    for name, table, tag in (("secrets", secrets, "s"), ("negatives", negatives, "n")):
        rows = _rows(table, tag, rng)
        if blind:
            for row in rows:
                row["split"] = "heldout"
        lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        (out / f"{name}.jsonl").write_text(lines, "utf-8")
        print(f"{name}: {len(rows)} rows")


def main() -> int:
    write(OUT, SECRETS, NEGATIVES)
    return 0


if __name__ == "__main__":
    sys.exit(main())
