"""`python -m scopa.server` runs the service."""

import sys

from scopa.server import main

sys.exit(main())
