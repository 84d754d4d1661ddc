import ArgumentParser
import WorkFeedCtl

WorkCtl.main()
