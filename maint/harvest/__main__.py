from maint.harvest.cli import main

raise SystemExit(main())
