"""The user guide: Markdown pages kept in docs/guide/ (French and English), served under /aide/.

Why in docs/: the guide is part of the repository, read on GitHub as well as on the site, and
its screenshots are made from the demo by `make guide`; the tests check that every screenshot it
names exists and every link it contains resolves.
"""
