"""Secret samples for the scanner tests: (sentence, the secret in it that must never be stored).

Each secret is written in a sentence the way people type it, with words around it that must be
kept. The values are made up or published test values (AWS's documentation keys, test cards).
"""

from __future__ import annotations

# a Mnemos agent token: `mnm_` and 43 URL-safe characters
MNEMOS_TOKEN = 'mnm_' + 'Q3vR8kLm2XyZ0aB7cD9eF1gH4iJ6kL5mN8oP2qR4sT7'

SAMPLES: list[tuple[str, str]] = [
    # passwords as people say them
    ('My name is Zed, I live in Oslo, and my password is hunter2', 'hunter2'),
    ('The password for the wifi is BlueFalcon77', 'BlueFalcon77'),
    ('the wifi password: correcthorse99', 'correcthorse99'),
    ('Our wifi key is zebra-crossing-42', 'zebra-crossing-42'),
    ('my gmail password was Tr0ub4dor&3 last year', 'Tr0ub4dor&3'),
    ('password=S3cr3tP@ss!', 'S3cr3tP@ss!'),
    ('pwd: letmein2024', 'letmein2024'),
    ('The passphrase is purple-monkey-dishwasher', 'purple-monkey-dishwasher'),
    ('login for the router: admin, password is r0uterAdm1n', 'r0uterAdm1n'),
    ('我的密码是 qwerty8899', 'qwerty8899'),
    ('WiFi密码：sunshine2025', 'sunshine2025'),
    ('The password to the shared drive is now Kx9!mQ2z', 'Kx9!mQ2z'),
    # PINs and codes
    ('My PIN is 4821', '4821'),
    ('the pin for my debit card is 7350', '7350'),
    ('PIN code: 902113', '902113'),
    ('The door code is 5521, come in', '5521'),
    ('alarm code is 1 9 8 4', '1 9 8 4'),
    ('the garage code: 3345', '3345'),
    # national ids
    ('My SSN is 123-45-6789', '123-45-6789'),
    ('social security number 078 05 1120 for the form', '078 05 1120'),
    ('He wrote 536-22-8841 on the tax form', '536-22-8841'),
    ('my 身份证号码 11010519491231002X', '11010519491231002X'),
    ('passport number X12345678 expires soon', 'X12345678'),
    ('her codice fiscale is RSSMRA85T10A562S', 'RSSMRA85T10A562S'),
    ('DNI 12345678Z', '12345678Z'),
    ('my national id number is 850101-1234', '850101-1234'),
    # payment
    ('Pay with 4111 1111 1111 1111 please', '4111 1111 1111 1111'),
    ('card 5500-0000-0000-0004 expires 12/28', '5500-0000-0000-0004'),
    ('Amex 378282246310005 for travel', '378282246310005'),
    ('my credit card: 4111-1111-1111-1112', '4111-1111-1111-1112'),
    ('the CVV is 737', '737'),
    ('IBAN DE89 3704 0044 0532 0130 00 for rent', 'DE89 3704 0044 0532 0130 00'),
    ('send it to GB82WEST12345698765432', 'GB82WEST12345698765432'),
    ('NL91ABNA0417164300 is the landlord account', 'NL91ABNA0417164300'),
    # cloud and service credentials
    ('deploy with AKIAIOSFODNN7EXAMPLE today', 'AKIAIOSFODNN7EXAMPLE'),
    (
        'aws secret access key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
        'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    ),
    (
        'the secret key is je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY',
        'je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY',
    ),
    ('ASIAY34FZKBOKMUTVV7A is the session key id', 'ASIAY34FZKBOKMUTVV7A'),
    ('database is postgres://app:s3cretPw@db.internal:5432/main', 's3cretPw'),
    ('mysql://root:Hunter2Hunter2@10.0.0.5/shop is prod', 'Hunter2Hunter2'),
    ('redis url redis://default:vXq2LpR7@cache:6379', 'vXq2LpR7'),
    ('clone https://bob:gh0stPass@git.example.com/repo.git', 'gh0stPass'),
    ('My API key is sk-live-abc123def456ghi789', 'sk-live-abc123def456ghi789'),
    (
        'openai key sk-proj-AbCdEf0123456789xyzXYZ0987',
        'sk-proj-AbCdEf0123456789xyzXYZ0987',
    ),
    ('anthropic sk-ant-api03-ZyXwVu987654321abcDEF', 'sk-ant-api03-ZyXwVu987654321abcDEF'),
    ('token ghp_' + 'a1B2' * 9, 'ghp_' + 'a1B2' * 9),
    ('github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuv', 'github_pat_11ABCDEFG0123456789'),
    ('gitlab glpat-xYz12345678901234567', 'glpat-xYz12345678901234567'),
    ('slack xoxb-123456789012-abcdefghij', 'xoxb-123456789012-abcdefghij'),
    (
        'webhook https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX',
        'T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX',
    ),
    ('google AIzaSyA1234567890abcdefghijklmnopqrstuv', 'AIzaSyA1234567890abcdefghijklmnopqrstuv'),
    ('stripe rk_live_4eC39HqLyjWDarjtT1zdp7dc', 'rk_live_4eC39HqLyjWDarjtT1zdp7dc'),
    (
        'npm token npm_abcdefghijklmnopqrstuvwxyz0123456789',
        'npm_abcdefghijklmnopqrstuvwxyz0123456789',
    ),
    (
        'telegram bot 123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1',
        'AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1',
    ),
    (
        'jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.'
        'dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
        'dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
    ),
    (
        'Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123',
        'abcdefghijklmnopqrstuvwxyz0123',
    ),
    (
        'key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq9\n'
        '-----END RSA PRIVATE KEY-----',
        'MIIEowIBAAKCAQEA7bq9',
    ),
    (f'use the mnemos token {MNEMOS_TOKEN} for the bot', MNEMOS_TOKEN),
    ('client_secret = 9f8e7d6c5b4a39281706', '9f8e7d6c5b4a39281706'),
    ('access token: ya29.a0AfH6SMBx-Q8wE2', 'ya29.a0AfH6SMBx-Q8wE2'),
    ('the admin token is Zx8Qv2LmN4pR7tY1wK9eB3cD', 'Zx8Qv2LmN4pR7tY1wK9eB3cD'),
    ('here: kR4vT9xQ2mZ8pL6wN3yB7cF1hJ5dG0sA', 'kR4vT9xQ2mZ8pL6wN3yB7cF1hJ5dG0sA'),
    (
        'api_key="3f7a9c2e8b1d4f6a0c5e7b9d2f4a6c8e"',
        '3f7a9c2e8b1d4f6a0c5e7b9d2f4a6c8e',
    ),
]

# what must survive the redaction of the first sample
KEPT_WORDS = ('Zed', 'Oslo')
