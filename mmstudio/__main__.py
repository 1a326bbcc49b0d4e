from mmstudio.cli import main

raise SystemExit(main())
