"""Secret detection (seed 004: skip secrets-like strings): credentials and payment numbers are
found, ordinary numbers, dates and phone numbers are not."""

from __future__ import annotations

import pytest

from recall.write.guards import explicit_skip, redact_secret_fields, redact_secrets, secret_kind


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
    assert out['text'] == '[redacted:password]'
    assert out['metadata'] == {'note': ['[redacted:aws_access_key]']}
    assert out['importance'] == 0.5 and record['text'] == 'pw: hunter22'
