__version__ = '2.6.0+rocm6.2.4'
debug = False
cuda = None
git_version = '1eba9b3aa3c43f86f4a2c807ac8e12c4a7767340'
hip = '6.2.41134-65d174c3e'
