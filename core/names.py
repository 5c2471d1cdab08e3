"""Names whose kind is known without a model: organisations people work for.

The write side reads facts with patterns and the graph with a small spaCy model, and both meet
"I moved to Google": a move names a home only when its object is a place. A name with a company
suffix ("Acme Corp", "Initech Ltd") or one of the best-known employers is an organisation
wherever it stands, so moving to it is a new job, not a new home. Software names ("Slack",
"GitHub") are the graph's `KNOWN_TOOLS`, not listed here.
"""

from __future__ import annotations

import re

# the largest, best-known employers whose names are not also places or common words in chat
# (casefolded); a name that is a town somewhere ("Amazon" is a river, but "moved to Amazon" is
# a job) is listed only when the employer is the reading people mean
KNOWN_ORGS = frozenset(
    {
        'google', 'alphabet', 'microsoft', 'apple', 'amazon', 'meta', 'facebook', 'netflix',
        'ibm', 'intel', 'oracle', 'salesforce', 'adobe', 'nvidia', 'amd', 'tesla', 'spacex',
        'uber', 'lyft', 'airbnb', 'stripe', 'shopify', 'twitter', 'linkedin', 'openai',
        'anthropic', 'deepmind', 'samsung', 'sony', 'siemens', 'sap', 'accenture', 'deloitte',
        'mckinsey', 'pwc', 'kpmg', 'goldman sachs', 'jpmorgan', 'jp morgan', 'morgan stanley',
        'blackrock', 'hsbc', 'barclays', 'citi', 'citigroup', 'huawei', 'alibaba', 'tencent',
        'bytedance', 'baidu', 'atlassian', 'cisco', 'vmware', 'qualcomm', 'boeing', 'airbus',
        'toyota', 'bmw', 'volkswagen', 'unilever', 'nestle', 'walmart', 'starbucks', 'disney',
        'pixar', 'bloomberg', 'red hat', 'palantir', 'databricks', 'snowflake', 'coinbase',
        'paypal', 'ebay', 'booking.com', 'zalando', 'ericsson', 'nokia', 'philips',
    }
)  # fmt: skip

ORG_SUFFIX = re.compile(
    r'(?i)\b(?:inc|corp|corporation|ltd|llc|gmbh|ag|plc|co|labs?|technologies|systems|'
    r'software|group|holdings|bank|capital|partners|consulting|ventures|studios)\.?$'
)


def is_organisation(name: str) -> bool:
    """Whether `name` is an organisation by its own words: a company suffix or a best-known
    employer's name."""
    key = ' '.join(name.split()).strip(' .,!;:').casefold()
    return key in KNOWN_ORGS or bool(ORG_SUFFIX.search(key))
