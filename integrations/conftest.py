"""pytest configuration of integrations/: the repository root on sys.path (the adapters import
`integrations.…`), and test_hlab_client.py left to tests/unit/serve_python.test.ts, which starts
the server it needs and passes it through the environment."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
collect_ignore = ["test_hlab_client.py"]
