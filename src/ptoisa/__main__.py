"""`python -m ptoisa`: the same command line as `ptoisa`."""

import sys

from ptoisa.cli.main import main

sys.exit(main())
