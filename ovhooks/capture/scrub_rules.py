"""The secret scrubber's rule tables: credential formats with a recognisable shape.

The formats are facts gathered from the public rule sets of gitleaks, trufflehog and
detect-secrets and from vendors' token documentation; the tables and expressions are ours.

- ``PREFIXED``: tokens that announce themselves with a vendor prefix (``ghp_``, ``glpat-``,
  ``hvs.``, ``dp.pt.``, ``pul-``…). One combined expression finds the prefix of a candidate
  token; the entry's body expression must then match what follows, so a prefix alone, or a
  prefix followed by filler (``ghp_xxxx``), is not a hit.
- ``SHAPED``: formats without a literal prefix but with a distinctive shape (Discord bot
  tokens, Azure AD client secrets, Terraform Cloud tokens, Mailchimp keys…), tried on the
  same candidate tokens.
- ``CONTEXT``: credentials recognised by what surrounds them: private key blocks, URLs with
  passwords, ``Authorization`` headers, command-line flags of the tools people type
  passwords into, ``.netrc``/``.pgpass`` lines, signed-URL signatures, XML settings.
"""

from __future__ import annotations

# body classes
_A = "A-Za-z0-9"
_W = "A-Za-z0-9_\\-"
_H = "a-f0-9"
_HH = "a-fA-F0-9"
_U = "A-Z0-9"
_B64 = "A-Za-z0-9+/="
_L = "a-z0-9"

# (prefix, kind, body expression) -- the body follows the prefix immediately.
# fmt: off
PREFIXED: tuple[tuple[str, str, str], ...] = (
    ("sk-ant-", "anthropic_key", f"[{_W}]{{32,}}"),
    ("sk-proj-", "openai_key", f"[{_W}]{{20,}}"),
    ("sk-svcacct-", "openai_key", f"[{_W}]{{20,}}"),
    ("sk-admin-", "openai_key", f"[{_W}]{{20,}}"),
    ("sk-None-", "openai_key", f"[{_W}]{{20,}}"),
    ("sk-or-v1-", "openrouter_key", f"[{_H}]{{40,}}"),
    ("sk-", "openai_key", f"[{_W}]{{20,}}"),
    ("ghp_", "github_token", f"[{_A}]{{30,}}"),
    ("gho_", "github_token", f"[{_A}]{{30,}}"),
    ("ghu_", "github_token", f"[{_A}]{{30,}}"),
    ("ghs_", "github_token", f"[{_A}]{{30,}}"),
    ("ghr_", "github_token", f"[{_A}]{{30,}}"),
    ("github_pat_", "github_token", f"[{_A}_]{{40,}}"),
    ("glpat-", "gitlab_token", f"[{_W}.]{{20,}}"),
    ("gldt-", "gitlab_token", f"[{_W}]{{20,}}"),
    ("glptt-", "gitlab_token", f"[{_W}]{{20,}}"),
    ("glrt-", "gitlab_token", f"[{_W}.]{{20,}}"),
    ("glcbt-", "gitlab_token", f"[{_W}]{{20,}}"),
    ("glffct-", "gitlab_token", f"[{_W}]{{20,}}"),
    ("glft-", "gitlab_token", f"[{_W}]{{20,}}"),
    ("glimt-", "gitlab_token", f"[{_W}]{{20,}}"),
    ("glagent-", "gitlab_token", f"[{_W}]{{40,}}"),
    ("gloas-", "gitlab_token", f"[{_W}]{{40,}}"),
    ("glsoat-", "gitlab_token", f"[{_W}]{{20,}}"),
    ("GR1348941", "gitlab_token", f"[{_W}]{{20,}}"),
    ("_gitlab_session=", "gitlab_token", f"[{_L}]{{32,}}"),
    ("xoxb-", "slack_token", f"[{_A}-]{{10,}}"),
    ("xoxp-", "slack_token", f"[{_A}-]{{10,}}"),
    ("xoxa-", "slack_token", f"[{_A}-]{{10,}}"),
    ("xoxr-", "slack_token", f"[{_A}-]{{10,}}"),
    ("xoxs-", "slack_token", f"[{_A}-]{{10,}}"),
    ("xoxo-", "slack_token", f"[{_A}-]{{10,}}"),
    ("xoxe-", "slack_token", f"[{_A}-]{{10,}}"),
    ("xoxe.xox", "slack_token", f"[{_A}-]{{20,}}"),
    ("xapp-", "slack_token", f"[{_A}-]{{20,}}"),
    ("AIza", "google_api_key", f"[{_W}]{{35}}"),
    ("ya29.", "google_oauth", f"[{_W}.]{{20,}}"),
    ("GOCSPX-", "google_oauth", f"[{_W}]{{20,}}"),
    ("1//", "google_refresh_token", f"[{_W}]{{30,}}"),
    ("sk_live_", "stripe_key", f"[{_A}]{{16,}}"),
    ("sk_test_", "stripe_key", f"[{_A}]{{16,}}"),
    ("rk_live_", "stripe_key", f"[{_A}]{{16,}}"),
    ("rk_test_", "stripe_key", f"[{_A}]{{16,}}"),
    ("sk_prod_", "stripe_key", f"[{_A}]{{16,}}"),
    ("whsec_", "stripe_key", f"[{_B64}]{{24,}}"),
    ("sk_", "api_key", f"[{_A}]{{32,}}"),
    ("AKIA", "aws_access_key", f"[{_U}]{{16}}"),
    ("ASIA", "aws_access_key", f"[{_U}]{{16}}"),
    ("ABIA", "aws_access_key", f"[{_U}]{{16}}"),
    ("ACCA", "aws_access_key", f"[{_U}]{{16}}"),
    ("A3T", "aws_access_key", f"[{_U}]{{17}}"),
    ("ABSK", "aws_bedrock_key", f"[{_B64}]{{100,}}"),
    ("IQoJb3JpZ2lu", "aws_session_token", f"[{_B64}]{{80,}}"),
    ("FwoGZXIvYXdz", "aws_session_token", f"[{_B64}]{{80,}}"),
    ("FQoGZXIvYXdz", "aws_session_token", f"[{_B64}]{{80,}}"),
    ("hf_", "huggingface_token", f"[{_A}]{{30,}}"),
    ("api_org_", "huggingface_token", f"[{_A}]{{30,}}"),
    ("npm_", "npm_token", f"[{_A}]{{36}}"),
    ("pypi-AgE", "pypi_token", f"[{_W}]{{50,}}"),
    ("rubygems_", "rubygems_token", f"[{_H}]{{48}}"),
    ("cio", "crates_token", f"[{_A}]{{32}}"),
    ("oy2", "nuget_key", f"[{_L}]{{43}}"),
    ("SG.", "sendgrid_key", f"[{_W}]{{16,32}}\\.[{_W}]{{16,64}}"),
    ("dop_v1_", "digitalocean_token", f"[{_H}]{{64}}"),
    ("doo_v1_", "digitalocean_token", f"[{_H}]{{64}}"),
    ("dor_v1_", "digitalocean_token", f"[{_H}]{{64}}"),
    ("shpat_", "shopify_token", f"[{_HH}]{{32}}"),
    ("shpca_", "shopify_token", f"[{_HH}]{{32}}"),
    ("shppa_", "shopify_token", f"[{_HH}]{{32}}"),
    ("shpss_", "shopify_token", f"[{_HH}]{{32}}"),
    ("lin_api_", "linear_key", f"[{_A}]{{32,}}"),
    ("lin_oauth_", "linear_key", f"[{_A}]{{32,}}"),
    ("hvs.", "vault_token", f"[{_W}]{{24,}}"),
    ("hvb.", "vault_token", f"[{_W}]{{24,}}"),
    ("hvr.", "vault_token", f"[{_W}]{{24,}}"),
    ("s.", "vault_token", f"[{_A}]{{24}}"),
    ("b.", "vault_token", f"[{_A}]{{24}}"),
    ("gsk_", "groq_key", f"[{_A}]{{40,}}"),
    ("xai-", "xai_key", f"[{_A}]{{40,}}"),
    ("pplx-", "perplexity_key", f"[{_A}]{{40,}}"),
    ("r8_", "replicate_token", f"[{_A}]{{30,}}"),
    ("fw_", "fireworks_key", f"[{_A}]{{20,}}"),
    ("tvly-", "tavily_key", f"[{_W}]{{24,}}"),
    ("fc-", "firecrawl_key", f"[{_H}]{{32}}"),
    ("jina_", "jina_key", f"[{_W}]{{40,}}"),
    ("pa-", "voyage_key", f"[{_W}]{{40,}}"),
    ("lsv2_pt_", "langsmith_key", f"[{_A}_]{{30,}}"),
    ("lsv2_sk_", "langsmith_key", f"[{_A}_]{{30,}}"),
    ("pcsk_", "pinecone_key", f"[{_A}_]{{40,}}"),
    ("dapi", "databricks_token", f"[{_H}]{{32}}(?:-\\d)?"),
    ("AGE-SECRET-KEY-1", "age_secret_key", f"[{_U}]{{58}}"),
    ("SK", "twilio_key", f"[{_HH}]{{32}}"),
    ("key-", "mailgun_key", f"[{_H}]{{32}}"),
    ("pubkey-", "mailgun_key", f"[{_H}]{{32}}"),
    ("ops_eyJ", "onepassword_token", f"[{_B64}]{{100,}}"),
    ("A3-", "onepassword_secret_key", f"[{_U}]{{6}}-[{_U}-]{{20,40}}"),
    ("p8e-", "adobe_secret", f"[{_A}]{{32}}"),
    ("LTAI", "alibaba_key", f"[{_A}]{{20}}"),
    ("AKCp", "artifactory_key", f"[{_A}]{{60,}}"),
    ("cmVmd", "artifactory_key", f"[{_A}]{{59}}"),
    ("ATATT3", "atlassian_token", f"[{_W}=]{{100,}}"),
    ("ATCTT3", "atlassian_token", f"[{_W}=]{{100,}}"),
    ("ATBB", "bitbucket_token", f"[{_A}]{{28,}}"),
    ("CLOJARS_", "clojars_token", f"[{_A}]{{60}}"),
    ("v1.0-", "cloudflare_ca_key", f"[{_H}]{{24}}-[{_H}]{{146}}"),
    ("4b1d", "clickhouse_key", f"[{_A}]{{38}}"),
    ("CFPAT-", "contentful_token", f"[{_W}]{{43}}"),
    ("dp.pt.", "doppler_token", f"[{_A}]{{40,}}"),
    ("dp.st.", "doppler_token", f"[{_A}.]{{40,}}"),
    ("dp.ct.", "doppler_token", f"[{_A}]{{40,}}"),
    ("dp.sa.", "doppler_token", f"[{_A}]{{40,}}"),
    ("dp.scim.", "doppler_token", f"[{_A}]{{40,}}"),
    ("dp.audit.", "doppler_token", f"[{_A}]{{40,}}"),
    ("duffel_test_", "duffel_token", f"[{_W}=]{{43}}"),
    ("duffel_live_", "duffel_token", f"[{_W}=]{{43}}"),
    ("dt0c01.", "dynatrace_token", f"[{_A}]{{24}}\\.[{_A}]{{64}}"),
    ("EZAK", "easypost_key", f"[{_A}]{{54}}"),
    ("EZTK", "easypost_key", f"[{_A}]{{54}}"),
    ("EAAC", "facebook_token", f"[{_A}]{{60,}}"),
    ("EAAM", "facebook_token", f"[{_A}]{{60,}}"),
    ("EAAA", "square_token", f"[{_W}]{{22,}}"),
    ("sq0atp-", "square_token", f"[{_W}]{{22,}}"),
    ("sq0csp-", "square_token", f"[{_W}]{{40,}}"),
    ("FLWSECK_TEST-", "flutterwave_key", f"[{_A}]{{12,}}(?:-X)?"),
    ("FLWSECK-", "flutterwave_key", f"[{_A}]{{12,}}(?:-X)?"),
    ("fo1_", "flyio_token", f"[{_W}]{{40,}}"),
    ("fm1a_", "flyio_token", f"[{_B64}]{{100,}}"),
    ("fm1r_", "flyio_token", f"[{_B64}]{{100,}}"),
    ("fm2_", "flyio_token", f"[{_B64}]{{100,}}"),
    ("fio-u-", "frameio_token", f"[{_W}=]{{64}}"),
    ("glc_", "grafana_token", f"[{_B64}]{{32,}}"),
    ("glsa_", "grafana_token", f"[{_A}]{{32}}_[{_HH}]{{8}}"),
    ("eyJrIjoi", "grafana_key", f"[{_B64}]{{60,}}"),
    ("HRKU-", "heroku_key", f"[{_W}]{{58,}}"),
    ("ico-", "infracost_token", f"[{_A}]{{32}}"),
    ("s-s4t2ud-", "intra42_secret", f"[{_H}]{{64}}"),
    ("s-s4t2af-", "intra42_secret", f"[{_H}]{{64}}"),
    ("sk.eyJ", "mapbox_token", f"[{_W}.]{{60,}}"),
    ("NRAK-", "newrelic_key", f"[{_U}]{{27}}"),
    ("NRII-", "newrelic_key", f"[{_W}]{{32}}"),
    ("NRJS-", "newrelic_key", f"[{_H}]{{19}}"),
    ("ntn_", "notion_token", f"[{_A}]{{40,}}"),
    ("secret_", "notion_token", f"[{_A}]{{43}}"),
    ("API-", "octopus_key", f"[{_U}]{{26}}"),
    ("sha256~", "openshift_token", f"[{_W}]{{43}}"),
    ("pscale_tkn_", "planetscale_token", f"[{_W}=.]{{32,}}"),
    ("pscale_oauth_", "planetscale_token", f"[{_W}=.]{{32,}}"),
    ("pscale_pw_", "planetscale_token", f"[{_W}=.]{{32,}}"),
    ("PMAK-", "postman_key", f"[{_HH}]{{24}}-[{_HH}]{{34}}"),
    ("pnu_", "prefect_token", f"[{_A}]{{36}}"),
    ("pul-", "pulumi_token", f"[{_H}]{{40}}"),
    ("rdme_", "readme_key", f"[{_L}]{{70}}"),
    ("tk-us-", "scalingo_token", f"[{_W}]{{48}}"),
    ("xkeysib-", "brevo_key", f"[{_H}]{{64}}-[{_A}]{{16}}"),
    ("xsmtpsib-", "brevo_key", f"[{_H}]{{64}}-[{_A}]{{16}}"),
    ("sntrys_", "sentry_token", f"[{_B64}_]{{60,}}"),
    ("sntryu_", "sentry_token", f"[{_H}]{{64}}"),
    ("sm_aat_", "settlemint_token", f"[{_A}]{{16}}"),
    ("sm_pat_", "settlemint_token", f"[{_A}]{{16}}"),
    ("sm_sat_", "settlemint_token", f"[{_A}]{{16}}"),
    ("shippo_live_", "shippo_token", f"[{_HH}]{{40}}"),
    ("shippo_test_", "shippo_token", f"[{_HH}]{{40}}"),
    ("sgp_", "sourcegraph_token", f"[{_HH}_]{{40,}}"),
    ("tfp_", "typeform_token", f"[{_W}.=]{{59}}"),
    ("AQVN", "yandex_key", f"[{_W}]{{35,38}}"),
    ("YC", "yandex_key", f"[{_W}]{{38}}"),
    ("t1.", "yandex_token", f"[{_W}]+=*\\.[{_W}]{{86}}=*"),
    ("sbp_", "supabase_token", f"[{_H}]{{40}}"),
    ("sb_secret_", "supabase_token", f"[{_W}]{{20,}}"),
    ("squ_", "sonar_token", f"[{_H}]{{40}}"),
    ("sqp_", "sonar_token", f"[{_H}]{{40}}"),
    ("sqa_", "sonar_token", f"[{_H}]{{40}}"),
    ("dckr_pat_", "docker_token", f"[{_W}]{{27,}}"),
    ("dckr_oat_", "docker_token", f"[{_W}]{{27,}}"),
    ("bkua_", "buildkite_token", f"[{_H}]{{40}}"),
    ("CCIPAT_", "circleci_token", f"[{_W}]{{40,}}"),
    ("figd_", "figma_token", f"[{_W}]{{40,}}"),
    ("tskey-", "tailscale_key", f"[{_W}]{{20,}}"),
    ("nfp_", "netlify_token", f"[{_A}]{{36,}}"),
    ("rnd_", "render_key", f"[{_A}]{{28,}}"),
    ("napi_", "neon_key", f"[{_A}]{{50,}}"),
    ("pat-na1-", "hubspot_token", f"[{_H}-]{{36}}"),
    ("pat-eu1-", "hubspot_token", f"[{_H}-]{{36}}"),
    ("access-sandbox-", "plaid_token", f"[{_H}-]{{36}}"),
    ("access-development-", "plaid_token", f"[{_H}-]{{36}}"),
    ("access-production-", "plaid_token", f"[{_H}-]{{36}}"),
    ("ck_", "woocommerce_key", f"[{_H}]{{40}}"),
    ("cs_", "woocommerce_key", f"[{_H}]{{40}}"),
    ("xprv", "crypto_private_key", "[1-9A-HJ-NP-Za-km-z]{100,}"),
    ("AAAAAAAAAAAAAAAAAAAAA", "twitter_bearer", f"[{_A}%]{{50,}}"),
    ("sl.", "dropbox_token", f"[{_W}=]{{120,}}"),
    ("b_", "beamer_token", f"[{_W}=]{{44}}"),
    ("glsa_", "grafana_token", f"[{_A}_]{{40}}"),
    ("sat.", "harness_key", f"[{_W}]{{22}}\\.[{_A}]{{24}}\\.[{_A}]{{20}}"),
    ("pat.", "harness_key", f"[{_W}]{{22}}\\.[{_A}]{{24}}\\.[{_A}]{{20}}"),
    ("re_", "resend_key", f"[{_A}]{{8}}_[{_A}]{{20,}}"),
    ("eyJ", "jwt", f"[{_W}]{{8,}}\\.(?:eyJ|ey)?[{_W}]{{8,}}\\.[{_W}]*"),
)

# Shapes without a literal prefix: (kind, expression), tried on each candidate token.
# (kind, a substring every such token holds, expression)
SHAPED: tuple[tuple[str, str, str], ...] = (
    ("discord_token", ".", f"[MNO][{_W}]{{23,27}}\\.[{_W}]{{6,7}}\\.[{_W}]{{27,40}}"),
    ("azure_client_secret", "Q~", f"[{_A}_~.]{{3}}\\dQ~[{_A}_~.-]{{31,34}}"),
    ("terraform_token", ".atlasv1.", f"[{_L}]{{14}}\\.atlasv1\\.[{_W}=]{{60,70}}"),
    ("mailchimp_key", "-us", f"[{_H}]{{32}}-us\\d{{1,2}}"),
    ("maxmind_key", "_mmk", f"[{_A}]{{6}}_[{_A}]{{29}}_mmk"),
    ("airtable_token", "pat", f"pat[{_A}]{{14}}\\.[{_H}]{{64}}"),
)

# Every PREFIXED format needs this many characters or more (prefix and body; Slack's
# "xoxb-" and ten), so a shorter run of token characters is not a candidate at all
# (tests/capture/test_scrub checks it).
PREFIXED_MIN_LEN = 15

# The characters a shape's token starts with, where its telltale substring is common (a dotted
# path holds "."): the telltale counts only in a token that starts so (a test checks it).
SHAPED_LEADS = {"discord_token": "MNO", "airtable_token": "p"}

# Every SHAPED expression needs this many characters or more (tests/capture/test_scrub_rules
# checks it), so a shorter token is not tried against them.
SHAPED_MIN_LEN = 36

# Context rules: (kind, expression, group holding the secret, lower-case hints; one must be
# in the text for the rule to run). ``(?P<v>…)`` names the secret when the group is 0.
CONTEXT: tuple[tuple[str, str, str], ...] = (
    ("private_key",
     r"-----BEGIN[A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)?-----"
     r"(?:.{0,20000}?-----END[A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)?-----"
     r"|(?:[A-Za-z0-9+/=\s:,-]|\\[nr]){0,20000})",
     "private key"),
    ("private_key",
     r"PuTTY-User-Key-File-\d+:.{0,4000}?(?:Private-MAC:\s*[0-9a-f]+|\Z)",
     "putty-user-key"),
    ("telegram_bot_token", r"(?<!\d)\d{8,10}:AA[A-Za-z0-9_-]{30,40}(?![A-Za-z0-9_-])", ":aa"),
    ("firebase_key", r"AAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,}", "apa91b"),
    ("asana_token", r"(?<![\w/])[0-2]/\d{10,20}(?:/\d{10,20})?:[a-f0-9]{32}(?![\w])",
     "re:/\\d{10}"),
    ("gcp_private_key_id", r"\"private_key_id\"\s*:\s*\"(?P<v>[0-9a-f]{40})\"", "private_key_id"),
    ("password", r"\bhtpasswd\s+(?:-\w*b\w*\s+)(?:-\w+\s+)*\S+\s+\S+\s+(?P<v>[^\s|;&]+)",
     "htpasswd"),
    ("clickup_token", r"\bpk_\d{5,10}_[A-Z0-9]{32}\b", "pk_"),
    ("braintree_token", r"access_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[a-f0-9]{32}",
     "access_token$"),
    ("slack_webhook",
     r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_+-]{20,}",
     "hooks.slack.com"),
    ("discord_webhook",
     r"discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{20,}", "discord"),
    ("teams_webhook",
     r"\.webhook\.office\.com/webhookb2/[A-Za-z0-9@/-]{60,}", "webhook.office.com"),
    ("webhook_url",
     r"(?:outlook\.office\.com/webhook|hooks\.zapier\.com/hooks/catch|maker\.ifttt\.com"
     r"/trigger/[\w-]+/with/key|webhook\.site)/[A-Za-z0-9@/_-]{16,}",
     "outlook.office.com|hooks.zapier.com|maker.ifttt.com|webhook.site"),
    ("url_password",
     r"\b[A-Za-z][A-Za-z0-9+.-]{1,30}://[^\s:/@?#\[\]\"'<>]{0,128}:"
     r"(?P<v>[^\s@/?#\"'<>]{1,256})@",
     "://"),
    ("authorization",
     r"(?i:authorization|proxy-authorization|x-api-key|x-auth-token|private-token|"
     r"x-vault-token|api-key|x-goog-api-key|x-functions-key|ocp-apim-subscription-key|"
     r"x-figma-token|x-shopify-access-token|x-postmark-server-token|x-access-token)"
     r"[\"']?\s*[:=]\s*[\"']?"
     r"(?i:(?:basic|bearer|digest|token|negotiate|apikey|ssws|key|sharedkey|otoken)\s+)?"
     r"(?P<v>[A-Za-z0-9._~+/=:-]{6,})",
     "authorization|-key|-token"),  # every header name above ends so (fewer searches)
    ("bearer_token", r"(?i:\bbearer|\bbasic|\bssws)\s+(?P<v>[A-Za-z0-9._~+/-]{12,}=*)",
     "bearer|basic|ssws"),
    ("cookie",
     r"(?i:\bcookie|set-cookie)\s*:\s*(?P<v>[^\n\r\"']{8,2000})", "cookie"),
    # curl's -b/--cookie, a dict of cookies, document.cookie = "…" (each pair judged alone)
    ("cookie",
     r"(?:(?<=\s)-b|--cookie)(?:\s+|=)(?P<q>[\"']?)"
     r"(?P<v>[^\s\"'=;]{1,200}=[^\"'\n]{0,2000}?)(?P=q)(?=[\s;|&)`]|$)",
     " -b |--cookie"),
    ("cookie", r"(?i:\bcookies)\s*[=:]\s*\{(?P<v>[^{}\n]{4,2000})\}", "cookies"),
    ("cookie", r"(?i:\bcookie)\s*=\s*(?P<q>[\"'`])(?P<v>[^\"'`\n]{4,2000})(?P=q)", "cookie"),
    ("kubeconfig",
     r"(?i:client-(?:certificate|key)-data)[\"']?\s*[:=]\s*[\"']?(?P<v>[A-Za-z0-9+/=]{16,})",
     "client-certificate-data|client-key-data"),
    # a literal key given to a signing call: jwt.sign(payload, "…"), hmac.new(b"…"),
    # crypto.createHmac("sha256", "…")
    ("signing_key",
     r"(?:\bjwt\.(?:sign|encode|decode|verify)\(\s*[\w.\[\]\"']{1,80}\s*,|\bhmac\.new\("
     r"|\bcreateHmac\(\s*[\"'][\w-]+[\"']\s*,)\s*b?(?P<q>[\"'`])(?P<v>[^\"'`\n]{8,300})(?P=q)",
     "jwt.|hmac.new|createhmac"),
    # a literal written into a file named for a key or a secret: echo x > config/master.key
    ("password",
     r"\becho\s+(?:-n\s+)?(?P<q>[\"']?)(?P<v>[^\s\"'$`]{12,300})(?P=q)\s*>>?\s*[^\s;|&]*"
     r"(?:\.key|key|secret|token|credentials|passw(?:or)?d|\.pem)\b",
     "echo "),
    # kubeadm's bootstrap tokens ("abcdef.0123456789abcdef") after "--token" or "token: "
    ("bootstrap_token",
     r"(?<![\w.-])[a-z0-9]{6}\.(?=[a-z]*[0-9])[a-z0-9]{16}(?![\w.-])", "--token|token: "),
    ("password",
     r"\b(?:machine\s+\S+|default)(?:\s+(?:login|account|port)\s+\S+)*?\s+(?:password|passwd)\s+"
     r"(?P<v>\S+)",
     "machine|default"),
    ("password",
     r"(?m)^[ \t]*[^\s:#]+:(?:\d{1,5}|\*):[^\s:]+:[^\s:]+:(?P<v>[^\s]+)[ \t]*$",
     "re::(?:\\d{1,5}|\\*):"),
    ("signature",
     r"[?&;](?i:sig|signature|x-amz-signature|x-amz-credential|x-amz-security-token|"
     r"x-goog-signature|x-goog-credential|se?cret|sharedaccesssignature)="
     r"(?P<v>[A-Za-z0-9%+/=._~-]{8,})",
     "sig=|signature=|x-amz-|x-goog-|secret=|scret=|sharedaccesssignature="),
    ("password",
     r"(?i:<(?P<tag>(?:\w+[-_:]?)?(?:password|passwd|secret|token|apikey|api[-_]key|"
     r"access[-_]?key|secret[-_]?key|private[-_]?key|credentials?))\s*>)"
     r"(?P<v>[^<\n]{3,300})</(?P=tag)\s*>",
     "</"),
    ("password",
     r"(?i)<add\s+key=\"[^\"]*(?:password|secret|token|apikey|key)[^\"]*\"\s+"
     r"value=\"(?P<v>[^\"]{3,300})\"",
     "<add"),
    ("password",
     r"(?i:\bsshpass)\s+(?:-\w+\s+)*?-p\s*(?P<q>[\"']?)(?P<v>[^\s\"']+)(?P=q)", "sshpass"),
    ("password",
     r"\blogin\b[^\n|;&]{0,200}?\s-p\s+(?P<q>[\"']?)(?P<v>[^\s\"'-][^\s\"']*)(?P=q)",
     " -p "),
    ("password",
     r"\b(?:mysql\w*|mariadb\w*|mysqldump|mysqladmin)\b[^\n|;&]{0,200}?\s-p"
     r"(?P<q>[\"']?)(?P<v>[^\s\"'-][^\s\"']*)(?P=q)",
     "mysql|mariadb"),
    ("password",
     r"\b(?:redis-cli|keydb-cli)\b[^\n|;&]{0,200}?\s-a\s+(?P<q>[\"']?)(?P<v>[^\s\"']+)(?P=q)",
     "-cli"),
    ("password",
     r"\bldap\w+\b[^\n|;&]{0,200}?\s-w\s+(?P<q>[\"']?)(?P<v>[^\s\"']+)(?P=q)", "ldap"),
    ("password", r"\b(?:zip|unzip|7z|7za|rar|unrar)\b[^\n|;&]{0,200}?\s-[pP]\s*"
     r"(?P<q>[\"']?)(?P<v>[^\s\"'-][^\s\"']*)(?P=q)", "zip|7z|rar"),
    ("password", r"-pass(?:in|out)?\s+(?:pass|env):(?P<v>[^\s\"']+)", "-pass"),
    ("password",
     r"(?<![\w-])(?:-u|--user|--proxy-user|-U|--username)(?:\s+|=)(?P<q>[\"']?)"
     r"[^\s:%\"'@]{1,100}[:%](?P<v>[^\s\"']{3,200})(?P=q)",
     "-u|--user|--proxy-user|--username"),
    ("password",
     r"\baws\s+configure\s+set\s+\S*(?:secret|token)\S*\s+(?P<v>\S+)",
     "configure set"),
    ("password",
     r"\bnpm\s+config\s+set\s+\S*(?:_auth|_password|token)\S*\s+(?P<v>\S+)",
     "config set"),
    ("password",
     r"\bvault\s+login\s+(?:-\S+\s+)*(?P<v>[A-Za-z0-9._-]{16,})", "vault login"),
    ("password",
     r"(?i)\b(?:password|passwd|passphrase|pwd|pw)\s+(?:is|was|=|:|of)\s+(?:now\s+)?"
     r"(?P<q>[\"'`]?)(?P<v>[^\s\"'`]{4,200}?)(?P=q)(?=[\s,;)]|[.!?](?:\s|$)|$)",
     "re:(?:password|passwd|passphrase|pwd|pw)\\s+(?:is|was|=|:|of)\\s"),
    ("credential",
     r"(?i)\b(?:token|api[ _-]?key|secret|access[ _-]?key|secret[ _-]?key|credentials?)"
     r"\s+(?:is|was|=|:)\s+(?:now\s+)?(?P<q>[\"'`]?)(?P<v>[^\s\"'`]{8,300}?)(?P=q)"
     r"(?=[\s,;)]|[.!?](?:\s|$)|$)",
     "token is |token was |token: |token = |key is |key was |key: |key = |secret is "
     "|secret was |secret: |secret = |credential is |credentials: |credential: "),
)
# fmt: on
