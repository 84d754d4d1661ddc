import WorkFeedCtl

WorkCtl.main()
