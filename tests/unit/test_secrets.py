"""Secret detection (seed 004: skip secrets-like strings): credentials and payment numbers are
found, ordinary numbers, dates and phone numbers are not."""

from __future__ import annotations

import random
import string

import pytest

from recall.write.guards import explicit_skip, redact_secret_fields, redact_secrets, secret_kind
from recall.write.scanner import redact, redact_fields
from tests.secret_corpus import KEPT_WORDS, SAMPLES


@pytest.mark.parametrize(
    ('text', 'kind'),
    [
        ('My API key is sk-live-abc123def456ghi789', 'api_key'),
        ('use sk-proj-AbCdEf0123456789xyz for the demo', 'api_key'),
        ('我的密码是 hunter2', 'password'),
        ('口令：芝麻开门123', 'password'),
        ('my password is Tr0ub4dor&3', 'password'),
        ('password: hunter2', 'password'),
        ('Pay with 4111 1111 1111 1111 please', 'card_number'),
        ('card 5500-0000-0000-0004', 'card_number'),
        ('4012888888881881', 'card_number'),
        # a number its writer calls a card number is one even when it fails Luhn (a typo)
        ('我的银行卡号是 6222 0212 3456 7890 123', 'card_number'),
        ('my credit card: 4111-1111-1111-1112', 'card_number'),
        ('AKIAIOSFODNN7EXAMPLE', 'aws_access_key'),
        ('token ghp_' + 'a1B2' * 9, 'github_token'),
        ('xoxb-123456789012-abcdefghij', 'slack_token'),
        ('Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123', 'bearer_token'),
        ('-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----', 'private_key'),
        ('IBAN DE89 3704 0044 0532 0130 00', 'iban'),
        ('GB82WEST12345698765432', 'iban'),
    ],
)
def test_a_secret_is_found_with_its_kind(text, kind):
    assert secret_kind(text) == kind
    assert explicit_skip(text) == f'secret:{kind}'
    assert f'[redacted:{kind}]' in redact_secrets(text)


@pytest.mark.parametrize(
    'text',
    [
        'I was born on 2019-03-03',
        'call me at +1 415 555 0100',
        'my number is 13800138000',
        '+86 138 0013 8000',
        'phone 0049 30 12345678',
        'order 1234567890123 shipped',
        'timestamp 1700000000000',
        'the year 2024 had 366 days',
        'pi is 3.14159265358979',
        'ISBN 978-3-16-148410-0',
        'the invoice total is 1,234,567.89 EUR',
        'tracking number 1Z999AA10123456784',
        'I forgot my password yesterday',
        'The password policy is strict',
        '我忘了密码',
        'my sk-learn model is trained',
        'I prefer dark roast coffee',
        'room 4242, floor 3',
        'Order 1234 5678 9012 3456 shipped',
        'my card arrived, order 6222021234567890 is done',
    ],
)
def test_ordinary_text_numbers_dates_and_phones_are_not_secrets(text):
    assert secret_kind(text) is None
    assert redact_secrets(text) == text
    assert explicit_skip(text) is None


def test_redaction_masks_only_the_secret_and_keeps_the_rest():
    text = 'Key sk-live-abc123def456ghi789 for Bob, card 4111111111111111.'
    assert redact_secrets(text) == 'Key [redacted:api_key] for Bob, card [redacted:card_number].'


def test_a_private_key_block_is_masked_whole():
    text = 'see\n-----BEGIN PRIVATE KEY-----\nMIIEv\nabc\n-----END PRIVATE KEY-----\nthanks'
    assert redact_secrets(text) == 'see\n[redacted:private_key]\nthanks'


def test_an_exported_record_is_masked_in_every_free_text_field():
    record = {
        'text': 'pw: hunter22',
        'metadata': {'note': ['AKIAIOSFODNN7EXAMPLE']},
        'tags': ['x'],
        'importance': 0.5,
    }
    out = redact_secret_fields(record)
    assert out['text'] == 'pw: [redacted:password]'
    assert out['metadata'] == {'note': ['[redacted:aws_access_key]']}
    assert out['importance'] == 0.5 and record['text'] == 'pw: hunter22'


def test_every_sample_of_the_corpus_is_masked_and_the_rest_kept():
    missed = [text for text, secret in SAMPLES if secret in redact(text)[0]]
    assert missed == []
    clean, kinds = redact(SAMPLES[0][0])
    assert kinds == ['password'] and all(word in clean for word in KEPT_WORDS)


@pytest.mark.parametrize(
    'text',
    [
        'the password is too long for this form',
        'my secret is that I love pineapple pizza',
        'the token economy is a behaviour therapy',
        'I pinned the photo, the pin is on the board',
        'We met at gate 42, the door code was changed',
        '#ThrowbackThursday with my family',
        'SuperCaliFragilisticExpialidocious',
        'see https://example.com/Abc123/Def456/Ghi789xyzw',
        'id 3f2b9c1e-8a4d-4c2b-9f1e-2a3b4c5d6e7f',
        'commit 9fceb02d0ae598e95dc970b74767f19372d61af8 fixed it',
        'my passport arrived yesterday',
    ],
)
def test_hard_negatives_are_not_secrets(text):
    assert redact(text) == (text, [])


def test_metadata_keys_that_name_a_secret_mask_their_values_whole():
    record = {
        'metadata': {
            'wifi': {'password': 'plainword', 'ssid': 'HomeNet'},
            'pin': 4821,
            'apiKey': ['a', 'b'],
            'token_count': 5,
            'AKIAIOSFODNN7EXAMPLE': 'as a key',
        },
        'tags': ['password=letmein99'],
        'entity_key': 'pw:hunter22',
        'source_ref': 'postgres://app:s3cretPw@db/main',
    }
    out, found = redact_fields(record)
    assert out['metadata'] == {
        'wifi': {'password': '[redacted:secret_field]', 'ssid': 'HomeNet'},
        'pin': '[redacted:secret_field]',
        'apiKey': ['[redacted:secret_field]', '[redacted:secret_field]'],
        'token_count': 5,
        '[redacted:aws_access_key]': 'as a key',
    }
    assert out['tags'] == ['password=[redacted:password]']
    assert out['entity_key'] == 'pw:[redacted:password]'
    assert out['source_ref'] == 'postgres://app:[redacted:url_password]@db/main'
    assert 'metadata.wifi.password:secret_field' in found
    assert 'metadata.[redacted:aws_access_key]:aws_access_key' in found


def test_masking_twice_masks_nothing_more():
    # every write path masks, and the writer's last gate masks again
    for text, _ in SAMPLES:
        once = redact(text)[0]
        assert redact(once) == (once, [])


def test_random_tokens_are_masked_and_words_run_together_are_not():
    # tokens as secrets.token_urlsafe(32) makes them (the admin token, most API keys)
    alphabet = string.ascii_letters + string.digits + '-_'
    rng = random.Random(7)
    tokens = [''.join(rng.choice(alphabet) for _ in range(43)) for _ in range(300)]
    missed = [t for t in tokens if t in redact(f'the token {t} is on the server')[0]]
    assert missed == []
    for words in ('MyPassword2024Summer', 'ThrowbackThursday2019', 'NewYorkCity2023Marathon'):
        assert redact(f'#{words} was fun') == (f'#{words} was fun', [])
